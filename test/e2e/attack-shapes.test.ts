/**
 * Hostile shapes in the model's output do not kill a host. Tool arguments nested 100,000 levels
 * deep used to overflow the stack after parsing (validation, the journal, the event stream):
 * `cairn run` died (and blamed the disk), `cairn acp` dropped every session, and `cairn web`'s
 * event stream ended at once for every page until restart. Now such a call fails as a malformed
 * call with one line for the model, and the task, the process and its other sessions go on.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, PROTOCOL_VERSION, type SessionNotification } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { cairnBin, cleanEnv, runCairn, xmlCall } from "../support/cairn-cli.js";
import { conversationRouter } from "../support/conversation-router.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { goodHeaders, rawRequest, startScriptedWeb, type WebRun } from "../support/web-harness.js";

const fx = useE2eFixture();

const levels = 100_000;
const deepArray = `${"[".repeat(levels)}${"]".repeat(levels)}`;
/** read_file's arguments with a 100,000-deep array beside the path, as raw JSON (JSON.stringify could not make it). */
const deepNative = (): ScriptedTurn => ({ content: [{ type: "tool_use", name: "read_file", input: {}, inputJson: `{"path":"notes.txt","x":${deepArray}}` }], chunkSize: 50_000 });
/** The xml protocol's way: a JSON-typed parameter (ask_followup_question's options) nested as deep. */
const deepXml = (): ScriptedTurn => ({ content: [{ type: "text", text: `<ask_followup_question>\n<question>Which one?</question>\n<options>${deepArray}</options>\n</ask_followup_question>` }], chunkSize: 50_000 });
const deep = (protocol: "native" | "xml") => (protocol === "native" ? deepNative() : deepXml());

const nativeCall = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const call = (protocol: "native" | "xml", name: string, input: Record<string, string>): ScriptedTurn =>
  protocol === "native" ? nativeCall(name, input) : { content: [{ type: "text", text: xmlCall(name, input) }] };
/** An object nested 30 levels: well inside the limit, as a real argument may be. */
const reasonable = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: "kept" };
  for (let i = 0; i < depth; i++) value = { [`level${i}`]: [value] };
  return value;
};

const refusal = /nested deeper than 64 levels, which Cairn does not accept; send flat arguments\./;
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });

/** Every file under CAIRN_HOME/tasks, as text: the journal must hold nothing of the shape. */
function journalText(): string {
  const dir = path.join(fx.home.dir, "tasks");
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}

describe("cairn run given tool arguments nested 100,000 deep", () => {
  it.each(["native", "xml"] as const)("lives, says one line, and the task goes on to its result (%s)", async (protocol) => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "the notes\n");
    // Positive control: a read with a reasonable nested argument beside its path still runs (native);
    // the xml protocol has no such parameter on read_file, so its read is plain.
    const read = protocol === "native" ? nativeCall("read_file", { path: "notes.txt", context: reasonable(30) }) : call("xml", "read_file", { path: "notes.txt" });
    fx.server = await startScriptedModelServer({ turns: [deep(protocol), read, call(protocol, "attempt_completion", { result: "read the notes" })] });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--protocol", protocol, "--auto-approve", "read", "read the notes"], {
      env: env(),
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(run.stdout).toBe("read the notes\n");
    // One clear line for the person; nothing about the stack or the disk.
    expect(run.stderr.split("\n").filter((line) => refusal.test(line))).toHaveLength(1);
    expect(run.stderr).not.toMatch(/call stack|space|journal/i);
    // The model was told in the tool result, and the reasonable read reached it.
    expect(fx.server.requests).toHaveLength(3);
    expect(JSON.stringify(fx.server.requests[1]!.body)).toMatch(refusal);
    expect(JSON.stringify(fx.server.requests[2]!.body)).toContain("the notes");
    // The journal recorded the task whole; a native call's input none of the shape (no run of
    // brackets). The xml protocol keeps the model's reply as the text it was, a string, which harms nothing.
    const journal = journalText();
    expect(journal).toMatch(refusal);
    expect(journal).toContain('"subtype":"success"');
    if (protocol === "native") expect(journal).not.toContain("[[[[[[[[[[");
  }, 180_000);
});

describe("cairn acp given tool arguments nested 100,000 deep", () => {
  it("keeps the connection: the session ends its turn, and a second session in the same process works", async () => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "the notes\n");
    const router = conversationRouter({
      "first task": [deepNative(), nativeCall("attempt_completion", { result: "first done" })],
      "second task": [nativeCall("read_file", { path: "notes.txt" }), nativeCall("attempt_completion", { result: "second done" })],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const child = spawn(process.execPath, [cairnBin, "acp", "--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "read"], {
      cwd: fx.workspace.dir,
      env: env(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const updates: SessionNotification[] = [];
    const app = client({ name: "test-editor" }).onNotification("session/update", ({ params }) => void updates.push(params));
    const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      const [first, second] = await app.connectWith(stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
        const a = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
        const firstStop = await ctx.request("session/prompt", { sessionId: a.sessionId, prompt: [{ type: "text", text: "first task" }] });
        const b = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
        const secondStop = await ctx.request("session/prompt", { sessionId: b.sessionId, prompt: [{ type: "text", text: "second task" }] });
        return [{ id: a.sessionId, stop: firstStop }, { id: b.sessionId, stop: secondStop }] as const;
      });
      expect(first.stop.stopReason, stderr).toBe("end_turn");
      expect(second.stop.stopReason, stderr).toBe("end_turn");
      // The first session's card failed with the one line; the second session read the file.
      const ends = (sessionId: string) =>
        updates.filter((n) => n.sessionId === sessionId).flatMap((n) => (n.update.sessionUpdate === "tool_call_update" && n.update.status ? [n.update] : []));
      expect(JSON.stringify(ends(first.id).find((u) => u.status === "failed"))).toMatch(refusal);
      expect(ends(second.id).some((u) => u.status === "completed")).toBe(true);
      expect(router.served.map((s) => s.key)).toEqual(["first task", "first task", "second task", "second task"]);
      expect(JSON.stringify(fx.server.requests.at(-1)!.body)).toContain("the notes");
      expect(child.exitCode).toBeNull();
      expect(stderr).not.toMatch(/call stack/i);
    } finally {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
  }, 180_000);
});

describe("cairn web given tool arguments nested 100,000 deep", () => {
  type Frame = { id: number; task_id: string; event: { type: string; subtype?: string; status?: string; content?: string; result?: string } };
  let web: WebRun | undefined;
  afterEach(async () => {
    await web?.stop();
    web = undefined;
  });

  /** What one page's event stream (a fresh connection, from the start) delivers in `ms`. */
  async function page(w: WebRun, ms: number): Promise<Frame[]> {
    const res = await rawRequest(w, { path: "/api/events", headers: goodHeaders(w), readMs: ms });
    expect(res.status).toBe(200);
    return res.body
      .split("\n\n")
      .filter((block) => block.includes("data: "))
      .map((block) => ({ id: Number(/^id: (\d+)$/m.exec(block)![1]), ...(JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Omit<Frame, "id">) }));
  }

  async function until(w: WebRun, test: (all: Frame[]) => boolean, timeoutMs = 60_000): Promise<Frame[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const all = await page(w, 300);
      if (test(all)) return all;
      if (Date.now() > deadline) throw new Error(`the stream never got there: ${JSON.stringify(all.map((f) => f.event.type))}\n${web?.stderr()}`);
    }
  }

  const post = (w: WebRun, body: unknown) =>
    rawRequest(w, { method: "POST", path: "/api/tasks", headers: goodHeaders(w, { "Content-Type": "application/json" }), body: JSON.stringify(body) });
  const resultOf = (frames: Frame[], taskId: string) => frames.find((f) => f.task_id === taskId && f.event.type === "result")?.event;

  it("keeps serving: the task ends with the one line, and another page's stream shows the next task", async () => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "the notes\n");
    const router = conversationRouter({
      "first task": [deepNative(), nativeCall("attempt_completion", { result: "first done" })],
      "second task": [nativeCall("read_file", { path: "notes.txt" }), nativeCall("attempt_completion", { result: "second done" })],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    web = await startScriptedWeb(fx.server, fx.workspace.dir, fx.home.dir, ["--auto-approve", "read"]);

    const first = await post(web, { text: "first task" });
    expect(first.status, first.body).toBe(201);
    const firstId = (JSON.parse(first.body) as { id: string }).id;
    const seen = await until(web, (all) => resultOf(all, firstId) !== undefined);
    expect(resultOf(seen, firstId)).toMatchObject({ subtype: "success", result: "first done" });
    expect(seen.some((f) => f.task_id === firstId && f.event.status === "failed" && refusal.test(f.event.content ?? ""))).toBe(true);

    // Another page, opened after: its stream replays the first task and carries the second one live.
    const second = await post(web, { text: "second task" });
    expect(second.status, second.body).toBe(201);
    const secondId = (JSON.parse(second.body) as { id: string }).id;
    const later = await until(web, (all) => resultOf(all, secondId) !== undefined);
    expect(resultOf(later, firstId)).toMatchObject({ subtype: "success" });
    expect(resultOf(later, secondId)).toMatchObject({ subtype: "success", result: "second done" });
    expect(later.some((f) => f.task_id === secondId && f.event.status === "completed")).toBe(true);
    expect(JSON.stringify(fx.server.requests.at(-1)!.body)).toContain("the notes");
    expect(web.stderr()).not.toMatch(/call stack/i);
  }, 180_000);
});
