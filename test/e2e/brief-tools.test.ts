import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEntry } from "../../packages/core/src/mcp/test-servers.js";
import { cleanEnv, runCairn, xmlCall } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../support/scripted-model-server.js";

/*
 * Rarely used tools reach a fresh task's first request as one line each. Every one of them must
 * still work when the model reaches for it at once: a right first call runs, a wrong one comes back
 * with the tool's full description, and the tool is offered in full from the next request on.
 */

let site: Server;
let siteUrl: string;
const article = `<!doctype html><html><head><title>Docs</title></head><body><nav>menu</nav><h1>Install guide</h1><p>Run <code>npm install cairn</code>.</p></body></html>`;
const page = `<!doctype html><html><head><title>Local page</title></head><body style="margin:0"><h1>Hello</h1>
<script>console.log('brief page loaded')</script></body></html>`;

beforeAll(async () => {
  site = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(req.url === "/article" ? article : page);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

const fx = useE2eFixture();
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done: ScriptedTurn = call("attempt_completion", { result: "done" });
type WireTool = { name: string; description: string; input_schema: { properties: Record<string, { description?: string }> } };
const offered = (request: RecordedRequest, name: string) => (request.body.tools as WireTool[]).find((t) => t.name === name)!;
const statuses = (events: Array<{ type: string; status?: unknown }>) => events.filter((e) => e.type === "tool_call_update" && "content" in e).map((e) => e.status);

function cairn(args: string[], timeoutMs = 30_000) {
  return runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", ...args], {
    env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    timeoutMs,
  });
}

describe("rarely used tools, called at once in a fresh task", () => {
  it("web_fetch (native): offered in one line, the first call works, then it is offered in full", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("web_fetch", { url: `${siteUrl}/article` }), done] });
    const run = await cairn(["--auto-approve", "browser", "read the docs"]);
    expect(run.code, run.stderr).toBe(0);
    expect(statuses(run.events)).toEqual(["completed", "completed"]);
    const [first, second] = fx.server.requests as [RecordedRequest, RecordedRequest];
    const brief = offered(first, "web_fetch");
    expect(brief.description).not.toContain("\n");
    expect(brief.input_schema.properties.url).toEqual({ type: "string" });
    expect(JSON.stringify(second.body.messages)).toContain("# Install guide");
    expect(offered(second, "web_fetch").description).toContain("Redirects are followed");
    expect(offered(second, "web_fetch").input_schema.properties.url!.description).toMatch(/http/);
  });

  it("browser_action (native): a wrong first call returns the full description; the second call drives Chromium", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("browser_action", { action: "open", url: siteUrl }), call("browser_action", { action: "launch", url: siteUrl }), call("browser_action", { action: "close" }), done],
    });
    // The page is on this machine's loopback, which the sandbox's network keeps from the browser unless allowed.
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ sandbox: { allowLocalhost: true } }));
    const run = await cairn(["--auto-approve", "browser", "look at the page"], 90_000);
    expect(run.code, run.stderr).toBe(0);
    expect(statuses(run.events)).toEqual(["failed", "completed", "completed", "completed"]);
    const requests = fx.server.requests;
    expect(offered(requests[0]!, "browser_action").description).toBe(offered(requests[0]!, "browser_action").description.split("\n")[0]);
    // The error names what was wrong and carries the tool's full description and parameters.
    const error = JSON.stringify(requests[1]!.body.messages);
    expect(error).toContain("Invalid parameters for browser_action");
    expect(error).toContain("browser_action in full");
    expect(error).toContain("Take positions from the screenshot");
    expect(error).toContain("launch");
    // From then on the tool is offered in full.
    expect(offered(requests[1]!, "browser_action").description).toContain("Take positions from the screenshot");
    expect(offered(requests[1]!, "browser_action").input_schema.properties.coordinate!.description).toContain("x,y");
    const afterLaunch = JSON.stringify(requests[2]!.body.messages);
    expect(afterLaunch).toContain("brief page loaded");
    expect(afterLaunch).toMatch(/"type":"image","source":\{"type":"base64","media_type":"image\/(?:png|webp|jpeg)"/);
  }, 120_000);

  it("list_code_definition_names (native, plan mode): the first call outlines the code", async () => {
    mkdirSync(path.join(fx.workspace.dir, "src"));
    writeFileSync(path.join(fx.workspace.dir, "src", "server.ts"), "export class Server {\n  start(port: number): void {}\n}\n");
    fx.server = await startScriptedModelServer({ turns: [call("list_code_definition_names", { path: "src" }), call("plan_mode_respond", { response: "The plan." })] });
    const run = await cairn(["--mode", "plan", "how is the server built?"]);
    expect(statuses(run.events), run.stderr).toEqual(["completed", "completed"]);
    const [first, second] = fx.server.requests as [RecordedRequest, RecordedRequest];
    expect(offered(first, "list_code_definition_names").description).not.toContain("\n");
    expect(JSON.stringify(second.body.messages)).toMatch(/class Server[\s\S]*start\(port: number\)/);
    expect(offered(second, "list_code_definition_names").description).toContain("grouped by file");
  });

  it("access_mcp_resource (native): the first call reads an MCP server's resource", async () => {
    writeFileSync(path.join(fx.home.dir, "mcp_settings.json"), JSON.stringify({ mcpServers: { every: { command: process.execPath, args: [serverEntry.everything()] } } }));
    fx.server = await startScriptedModelServer({
      turns: [call("access_mcp_resource", { server_name: "every", uri: "demo://resource/static/document/architecture.md" }), done],
    });
    const run = await cairn(["--auto-approve", "mcp", "read the architecture"], 60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(statuses(run.events)).toEqual(["completed", "completed"]);
    const [first, second] = fx.server.requests as [RecordedRequest, RecordedRequest];
    expect(offered(first, "access_mcp_resource").description).not.toContain("\n");
    expect(JSON.stringify(second.body.messages)).toContain("Everything Server");
    expect(offered(second, "access_mcp_resource").description).toContain("by its URI");
  }, 60_000);

  it("web_fetch (xml): a call missing its url gets the full description, the tool's prompt section grows, the retry works", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "text", text: xmlCall("web_fetch", { address: `${siteUrl}/article` }) }] },
        { content: [{ type: "text", text: xmlCall("web_fetch", { url: `${siteUrl}/article` }) }] },
        { content: [{ type: "text", text: xmlCall("attempt_completion", { result: "done" }) }] },
      ],
    });
    const run = await cairn(["--protocol", "xml", "--auto-approve", "browser", "read the docs"]);
    expect(run.code, run.stderr).toBe(0);
    expect(statuses(run.events)).toEqual(["failed", "completed", "completed"]);
    const [first, second, third] = fx.server.requests as [RecordedRequest, RecordedRequest, RecordedRequest];
    const system = (r: RecordedRequest) => JSON.stringify(r.body.system);
    expect(system(first)).toContain("## web_fetch\\nFetch an http(s) url");
    expect(system(first)).not.toContain("Redirects are followed");
    expect(JSON.stringify(second.body.messages)).toContain("web_fetch in full");
    expect(JSON.stringify(second.body.messages)).toContain("missing required parameter 'url'");
    expect(system(second)).toContain("Redirects are followed");
    expect(JSON.stringify(third.body.messages)).toContain("# Install guide");
  });
});
