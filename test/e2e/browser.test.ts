import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { approvalsAsked } from "../support/tool-call-events.js";

let site: Server;
let siteUrl: string;
let workspace: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: ScriptedModelServer | undefined;

const page = `<!doctype html><html><head><title>Local test page</title></head>
<body style="margin:0"><h1>Hello from 127.0.0.1</h1>
<button id="b" style="position:absolute;left:0;top:100px;width:200px;height:80px" onclick="console.log('button clicked'); document.body.style.background='#ffd'">Press</button>
<script>console.log('page loaded'); setTimeout(() => { throw new Error('boom from the page'); }, 10);</script></body></html>`;
const article = `<!doctype html><html><head><title>Docs</title><script>var x = 1;</script></head><body><nav>menu</nav>
<h1>Install guide</h1><p>Run <code>npm install cairn</code>, then read <a href="/more">more</a>.</p></body></html>`;

beforeAll(async () => {
  site = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(req.url === "/article" ? article : page);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));
/**
 * The test page is served on this machine's loopback, which the sandbox's network keeps from
 * commands and the browser alike (browser-sandbox-net.test.ts): these tests let it through as a
 * person would for a server of their own on localhost.
 */
const sharedNetwork = { sandbox: { allowLocalhost: true } };

beforeEach(() => {
  workspace = tempDir("ws");
  home = tempDir("home");
  writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify(sharedNetwork));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  workspace.cleanup();
  home.cleanup();
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

describe("browser_action and web_fetch through cairn run (Debian's Chromium)", () => {
  it("drives a local page: screenshot, console logs and page errors, a click, close; then fetches a page as markdown", async () => {
    server = await startScriptedModelServer({
      turns: [
        call("browser_action", { action: "launch", url: siteUrl }),
        call("browser_action", { action: "click", coordinate: "100,140" }),
        call("browser_action", { action: "close" }),
        call("web_fetch", { url: `${siteUrl}/article` }),
        call("attempt_completion", { result: "browsed" }),
      ],
    });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", workspace.dir, "--auto-approve", "browser", "--json", "check the page"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir }),
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const afterLaunch = JSON.stringify(server.requests[1]!.body);
    expect(afterLaunch).toContain("page loaded");
    expect(afterLaunch).toContain("boom from the page");
    const image = /"type":"image","source":\{"type":"base64","media_type":"image\/(?:png|webp|jpeg)","data":"([A-Za-z0-9+/=]+)"/.exec(afterLaunch);
    expect(image?.[1]?.length ?? 0).toBeGreaterThan(1_000);
    expect(JSON.stringify(server.requests[2]!.body)).toContain("button clicked");
    const fetched = JSON.stringify(server.requests[4]!.body);
    expect(fetched).toContain("# Install guide");
    expect(fetched).toContain("`npm install cairn`");
    expect(fetched).not.toContain("var x = 1");
    expect(run.events.filter((e) => e.type === "tool_call_update" && "content" in e).map((e) => e.status)).toEqual(["completed", "completed", "completed", "completed", "completed"]);
  }, 120_000);

  it("without browser approval, headless runs deny the browser", async () => {
    server = await startScriptedModelServer({ turns: [call("browser_action", { action: "launch", url: siteUrl }), call("attempt_completion", { result: "ok" })] });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", workspace.dir, "--json", "look"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir }),
    });
    expect(run.code).toBe(0);
    expect(approvalsAsked(run.events)[0]).toMatchObject({ category: "browser", preview: { type: "browser", action: "launch", url: siteUrl } });
    expect(run.events.find((e) => e.type === "tool_call_update" && "content" in e)).toMatchObject({ status: "denied" });
  });

  it("the viewport comes from settings.json", async () => {
    writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ ...sharedNetwork, browser: { viewport: { width: 640, height: 480 } } }));
    server = await startScriptedModelServer({
      turns: [call("browser_action", { action: "launch", url: siteUrl }), call("browser_action", { action: "close" }), call("attempt_completion", { result: "ok" })],
    });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", workspace.dir, "--auto-approve", "browser", "--json", "look"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir }),
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("640x480");
  }, 60_000);
});
