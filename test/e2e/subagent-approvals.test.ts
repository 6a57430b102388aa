import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, PROTOCOL_VERSION, type RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cairnBin, cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { conversationRouter, firstMessageText } from "../support/conversation-router.js";
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { goodHeaders, rawRequest, startScriptedWeb, type WebRun } from "../support/web-harness.js";

/**
 * "Always allow for this task" answered once in a parent holds in the sub-agents it starts (to the
 * person they are one task), and never gives a sub-agent a tool it was not given.
 */

type Frame = { id: number; task_id: string; event: { type: string; status?: string; tool_use_id?: string; name?: string; approval?: { suggested_rule?: string } } };

let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer | undefined;
let web: WebRun | undefined;
let pages: { url: string; hits: string[]; close(): Promise<void> };

const call = (name: string, input: Record<string, unknown>, id?: string): ScriptedTurn => ({ content: [{ type: "tool_use", name, input, ...(id ? { id } : {}) }] });

/** A site on 127.0.0.1 whose every page says which path it is, and remembers who asked for what. */
async function startPages(): Promise<typeof pages> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.writeHead(200, { "Content-Type": "text/plain" }).end(`PAGE-CONTENT of ${req.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

beforeEach(async () => {
  ws = tempDir("subagent-approvals-ws");
  home = tempDir("subagent-approvals-home");
  writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
  // An agent definition that may only read files: no web_fetch, whatever rules are in force.
  mkdirSync(path.join(home.dir, "agents"));
  writeFileSync(path.join(home.dir, "agents", "reader.md"), "---\nname: reader\ndescription: Reads files only\ntools: Read\n---\nRead what you are asked to.\n");
  pages = await startPages();
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  model = undefined;
  await pages.close();
  ws.cleanup();
  home.cleanup();
});

const post = (w: WebRun, p: string, body: unknown) =>
  rawRequest(w, { method: "POST", path: p, headers: goodHeaders(w, { "Content-Type": "application/json" }), body: JSON.stringify(body) });

async function frames(w: WebRun): Promise<Frame[]> {
  const res = await rawRequest(w, { path: "/api/events", headers: goodHeaders(w), readMs: 200 });
  return res.body
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => ({ id: Number(/^id: (\d+)$/m.exec(block)![1]), ...(JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Omit<Frame, "id">) }));
}

async function until(w: WebRun, test: (all: Frame[]) => boolean, timeoutMs = 30_000): Promise<Frame[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = await frames(w);
    if (test(all)) return all;
    if (Date.now() > deadline) throw new Error(`the stream never got there: ${JSON.stringify(all.map((f) => f.event.type))}`);
  }
}

const requestsOf = (key: string) => model!.requests.filter((r) => firstMessageText(r).includes(key));
const toolNames = (r: RecordedRequest) => ((r.body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name);
const body = (r: RecordedRequest | undefined) => JSON.stringify(r?.body ?? null);

/**
 * The parent fetches a page (the person is asked and answers `answer`), then starts two default
 * sub-agents that fetch pages of the same site, then one "reader" sub-agent (files only) that tries to.
 */
async function runInWeb(answer: { approved: true; remember?: "task" }) {
  const router = conversationRouter({
    "PARENT-TASK": [
      call("web_fetch", { url: `${pages.url}/parent` }),
      call("use_subagents", { prompts: [`SUB-ONE: fetch ${pages.url}/one`, `SUB-TWO: fetch ${pages.url}/two`] }, "toolu_subs"),
      call("use_subagents", { prompts: [`SUB-READER: fetch ${pages.url}/reader`], agent: "reader" }, "toolu_reader"),
      call("attempt_completion", { result: "PARENT-DONE" }),
    ],
    "SUB-ONE": [call("web_fetch", { url: `${pages.url}/one` }), call("attempt_completion", { result: "ONE-REPORT" })],
    "SUB-TWO": [call("web_fetch", { url: `${pages.url}/two` }), call("attempt_completion", { result: "TWO-REPORT" })],
    "SUB-READER": [call("web_fetch", { url: `${pages.url}/reader` }), call("attempt_completion", { result: "READER-REPORT" })],
  });
  model = await startScriptedModelServer({ responder: router.responder });
  web = await startScriptedWeb(model, ws.dir, home.dir);
  const started = await post(web, "/api/tasks", { text: "PARENT-TASK: read the docs" });
  expect(started.status, started.body).toBe(201);
  const id = (JSON.parse(started.body) as { id: string }).id;
  const asked = (await until(web, (all) => all.some((f) => f.event.status === "awaiting_approval"))).find((f) => f.event.status === "awaiting_approval")!;
  expect(asked.event.approval?.suggested_rule).toBe("web_fetch(127.0.0.1)");
  const answered = await post(web, `/api/tasks/${id}/approvals`, { tool_use_id: asked.event.tool_use_id, ...answer });
  expect(answered.status, answered.body).toBe(200);
  const all = await until(web, (f) => f.at(-1)!.event.type === "result");
  return { all, approvals: all.filter((f) => f.event.status === "awaiting_approval") };
}

describe("sub-agents and the person's approvals", () => {
  it("'always allow for this task' answered once in the parent holds in its sub-agents: asked once, their fetches ran and reached the parent", async () => {
    const { approvals } = await runInWeb({ approved: true, remember: "task" });

    // The person was asked once, about the parent's own call.
    expect(approvals).toHaveLength(1);
    expect(approvals[0]!.event.name).toBe("web_fetch");

    // Both sub-agents fetched their page, their models read it, and their reports reached the parent's model.
    expect(pages.hits).toEqual(expect.arrayContaining(["/parent", "/one", "/two"]));
    expect(body(requestsOf("SUB-ONE")[1])).toContain("PAGE-CONTENT of /one");
    expect(body(requestsOf("SUB-TWO")[1])).toContain("PAGE-CONTENT of /two");
    const afterSubs = body(requestsOf("PARENT-TASK")[2]);
    expect(afterSubs).toContain("ONE-REPORT");
    expect(afterSubs).toContain("TWO-REPORT");

    // The sub-agents' journals say the task's rule allowed their calls, not a person.
    const decisions = readdirSync(path.join(home.dir, "tasks"))
      .filter((n) => n !== "index.json")
      .map((id) => readFileSync(path.join(home.dir, "tasks", id, "events.jsonl"), "utf8"))
      .join("\n");
    expect(decisions.match(/allowed by the task rule web_fetch\(127\.0\.0\.1\)/g)?.length ?? 0).toBeGreaterThanOrEqual(2);

    // A sub-agent not given web_fetch (the "reader" definition) is refused it even with the rule in force.
    expect(toolNames(requestsOf("SUB-READER")[0]!)).not.toContain("web_fetch");
    expect(body(requestsOf("SUB-READER")[1])).toContain('There is no tool named \\"web_fetch\\"');
    expect(pages.hits).not.toContain("/reader");
  });

  it("control: approved once (no rule), the sub-agents are refused the same call and nobody is asked for them", async () => {
    const { approvals } = await runInWeb({ approved: true });
    expect(approvals).toHaveLength(1);
    expect(pages.hits).toContain("/parent");
    expect(pages.hits).not.toContain("/one");
    expect(pages.hits).not.toContain("/two");
    expect(body(requestsOf("SUB-ONE")[1])).toContain("nobody can approve it in this run");
    // ...and knows to report what it needed, so the parent (which can ask the person) can get it.
    expect(JSON.stringify(requestsOf("SUB-ONE")[0]!.body.system)).toContain("say in your report exactly what you needed (the URL, file or command)");
  });

  it("over ACP: 'always allow' (saved for the workspace) answered in the parent holds in its sub-agents; the editor is asked once", async () => {
    const router = conversationRouter({
      "PARENT-TASK": [
        call("web_fetch", { url: `${pages.url}/parent` }),
        call("use_subagents", { prompts: [`SUB-ONE: fetch ${pages.url}/one`, `SUB-TWO: fetch ${pages.url}/two`] }, "toolu_subs"),
        call("attempt_completion", { result: "PARENT-DONE" }),
      ],
      "SUB-ONE": [call("web_fetch", { url: `${pages.url}/one` }), call("attempt_completion", { result: "ONE-REPORT" })],
      "SUB-TWO": [call("web_fetch", { url: `${pages.url}/two` }), call("attempt_completion", { result: "TWO-REPORT" })],
    });
    model = await startScriptedModelServer({ responder: router.responder });
    const child = spawn(process.execPath, [cairnBin, "acp", "--provider", "anthropic", "--base-url", model.url], {
      cwd: ws.dir,
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const permissions: RequestPermissionRequest[] = [];
    const editor = client({ name: "test-editor" })
      .onNotification("session/update", () => undefined)
      .onRequest("session/request_permission", ({ params }) => {
        permissions.push(params);
        return { outcome: { outcome: "selected" as const, optionId: "allow_always" } };
      });
    const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    try {
      const stop = await editor.connectWith(stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
        const { sessionId } = await ctx.request("session/new", { cwd: ws.dir, mcpServers: [] });
        return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "PARENT-TASK: read the docs" }] });
      });
      expect(stop.stopReason).toBe("end_turn");
    } finally {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    expect(permissions).toHaveLength(1);
    expect(pages.hits).toEqual(expect.arrayContaining(["/parent", "/one", "/two"]));
    const afterSubs = body(requestsOf("PARENT-TASK")[2]);
    expect(afterSubs).toContain("ONE-REPORT");
    expect(afterSubs).toContain("TWO-REPORT");
    expect(readFileSync(path.join(home.dir, "permissions.json"), "utf8")).toContain("web_fetch(127.0.0.1)");
  });

  it("headless: a rule saved for the person (permissions.json) holds in sub-agents; without it they are refused", async () => {
    const router = () =>
      conversationRouter({
        "PARENT-TASK": [call("use_subagents", { prompts: [`SUB-ONE: fetch ${pages.url}/one`] }, "toolu_subs"), call("attempt_completion", { result: "PARENT-DONE" })],
        "SUB-ONE": [call("web_fetch", { url: `${pages.url}/one` }), call("attempt_completion", { result: "ONE-REPORT" })],
      });
    const run = async () => {
      model = await startScriptedModelServer({ responder: router().responder });
      const cli = await runCairn(["run", "--provider", "anthropic", "--base-url", model.url, "--cwd", ws.dir, "--json", "PARENT-TASK: read the docs"], {
        env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir }),
      });
      expect(cli.code, cli.stderr).toBe(0);
      return cli;
    };

    const refusals = (stdout: string) =>
      stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { type: string; activity?: string })
        .filter((e) => e.type === "subagent" && e.activity?.startsWith("refused"))
        .map((e) => e.activity);

    // Without a rule: refused, the sub-agent's model is told nobody can approve it here, and the person sees why.
    const refused = await run();
    expect(pages.hits).not.toContain("/one");
    expect(body(requestsOf("SUB-ONE")[1])).toContain("web_fetch needs approval (browser) and nobody can approve it in this run");
    expect(refusals(refused.stdout)).toEqual([`refused, needs your approval (browser) and sub-agents cannot ask: fetch ${pages.url}/one`]);
    await model!.close();

    writeFileSync(path.join(home.dir, "permissions.json"), JSON.stringify({ user: ["web_fetch(127.0.0.1)"], workspaces: {} }));
    const allowed = await run();
    expect(pages.hits).toContain("/one");
    expect(body(requestsOf("SUB-ONE")[1])).toContain("PAGE-CONTENT of /one");
    expect(refusals(allowed.stdout)).toEqual([]);
  });
});
