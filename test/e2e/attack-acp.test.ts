import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, watch, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, PROTOCOL_VERSION, type ClientContext, type RequestPermissionRequest, type RequestPermissionResponse, type SessionNotification } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { cairnBin, cleanEnv, tempDir } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer } from "../support/scripted-model-server.js";
import { conversationRouter } from "../support/conversation-router.js";

/**
 * An editor (the ACP SDK's client, as editors build it) that does what a careless or hostile one
 * may: answers Allow after it cancelled the turn, picks an option it was not offered, loads a
 * session for another folder than the one the task started in. Each checks the effect on disk,
 * with a control where the same answer is a fair one.
 */

const fx = useE2eFixture();
const extra: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const dir of extra.splice(0)) dir.cleanup();
});

const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });
const done = (result: string) => call("attempt_completion", { result });

type Answer = (request: RequestPermissionRequest, ctx: ClientContext) => Promise<RequestPermissionResponse>;
const choose = (optionId: string): Answer => async () => ({ outcome: { outcome: "selected", optionId } });

/** `cairn acp` as a child process against the scripted model; `answer` answers each permission request. */
async function withEditor<T>(answer: Answer, work: (ctx: ClientContext, seen: { permissions: RequestPermissionRequest[]; updates: SessionNotification[] }) => Promise<T>) {
  const child = spawn(process.execPath, [cairnBin, "acp", "--provider", "anthropic", "--base-url", fx.server.url], {
    cwd: fx.workspace.dir,
    env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const seen = { permissions: [] as RequestPermissionRequest[], updates: [] as SessionNotification[] };
  let context: ClientContext | undefined;
  const app = client({ name: "attack-editor" })
    .onNotification("session/update", ({ params }) => void seen.updates.push(params))
    .onRequest("session/request_permission", ({ params }) => {
      seen.permissions.push(params);
      return answer(params, context!);
    });
  const stream = ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  try {
    const value = await app.connectWith(stream, async (ctx) => {
      context = ctx;
      await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      return await work(ctx, seen);
    });
    return { value, seen, stderr: () => stderr };
  } finally {
    await ended(child);
  }
}

async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.stdin?.end();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Event = { type: string; name?: string; tool_use_id?: string; status?: string; decision?: { approved: boolean; reason: string } };
const events = (taskId: string): Event[] =>
  readFileSync(path.join(fx.home.dir, "tasks", taskId, "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Event);

describe("ACP: after session/cancel nothing of the turn takes effect", () => {
  it("the editor cancels, then answers Allow 800 ms later: the file is not written, the turn stops cancelled, and the record says the call was cancelled, not run", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "late.txt", content: "written after cancel\n" }), done("NEXT-PROMPT-DONE")] });
    let lateAnswerSent!: () => void;
    const lateAnswer = new Promise<void>((resolve) => (lateAnswerSent = resolve));
    const cancelThenAllow: Answer = async (request, ctx) => {
      await ctx.notify("session/cancel", { sessionId: request.sessionId });
      await delay(800);
      setImmediate(lateAnswerSent);
      return { outcome: { outcome: "selected", optionId: "allow_once" } };
    };
    const { value } = await withEditor(cancelThenAllow, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      const stop = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write it" }] });
      // The late Allow went out; the next prompt's round trip comes after it on the same stream, so cairn has read it by then.
      await lateAnswer;
      const next = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "anything else?" }] });
      return { stop, next, sessionId };
    });
    expect(value.stop.stopReason).toBe("cancelled");
    expect(value.next.stopReason).toBe("end_turn");
    expect(existsSync(path.join(fx.workspace.dir, "late.txt"))).toBe(false);
    // The cancelled turn went no further: the model was asked again only for the next prompt, and told the call did not run.
    expect(fx.server.requests).toHaveLength(2);
    expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("Not run: the task was stopped before this call started.");
    const write = events(value.sessionId).find((e) => e.type === "tool_call" && e.name === "write_to_file")!;
    const ends = events(value.sessionId).filter((e) => e.type === "tool_call_update" && e.tool_use_id === write.tool_use_id && e.status !== "awaiting_approval");
    expect(ends.map((e) => [e.status, e.decision])).toEqual([["cancelled", { approved: false, by: "user", reason: "the task was stopped before it ran" }]]);
  });

  it("a control: Allow without a cancel writes the file", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "late.txt", content: "allowed\n" }), done("written")] });
    const { value } = await withEditor(choose("allow_once"), async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write it" }] });
    });
    expect(value.stopReason).toBe("end_turn");
    expect(readFileSync(path.join(fx.workspace.dir, "late.txt"), "utf8")).toBe("allowed\n");
  });
});

describe("ACP: a hand-off (new_task) starts only on an answer it offered, in a turn not cancelled", () => {
  const storedTasks = () => readdirSync(path.join(fx.home.dir, "tasks")).filter((n) => n !== "index.json");
  const handoffScript = () =>
    conversationRouter({
      "ORIGINAL-REQUEST": [call("new_task", { context: "HANDOFF-CONTEXT: write handed.txt" }), done("stayed here")],
      "HANDOFF-CONTEXT": [call("write_to_file", { path: "handed.txt", content: "x\n" }), done("handed")],
    });
  const drive = (answer: Answer) =>
    withEditor(answer, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "ORIGINAL-REQUEST: go" }] });
    });

  it("a made-up id: no new task, the work stays here, and the log says why", async () => {
    fx.server = await startScriptedModelServer({ responder: handoffScript().responder });
    const { value, stderr } = await drive(choose("start_it_anyway"));
    expect(value.stopReason).toBe("end_turn");
    expect(storedTasks()).toHaveLength(1);
    expect(stderr()).toContain('the editor answered whether to start a new task with "start_it_anyway", which it was not offered (start_new_task, stay): the work stays in this task.');
  });

  it("cancelled, then 'start' 800 ms later: no new task starts", async () => {
    fx.server = await startScriptedModelServer({ responder: handoffScript().responder });
    const { value } = await drive(async (request, ctx) => {
      await ctx.notify("session/cancel", { sessionId: request.sessionId });
      await delay(800);
      return { outcome: { outcome: "selected", optionId: "start_new_task" } };
    });
    expect(value.stopReason).toBe("cancelled");
    expect(storedTasks()).toHaveLength(1);
    expect(existsSync(path.join(fx.workspace.dir, "handed.txt"))).toBe(false);
  });

  it("'start', then session/cancel while the new task is being opened: nothing of it is written, nor asked about", async () => {
    // The new task's first reply is slow, so a cancel that reaches it once it runs would stop it too:
    // what matters is a cancel that comes while it opens, before the session has switched to it.
    fx.server = await startScriptedModelServer({
      responder: conversationRouter({
        "ORIGINAL-REQUEST": [call("new_task", { context: "HANDOFF-CONTEXT: write handed.txt" }), done("stayed here")],
        "HANDOFF-CONTEXT": [{ ...call("write_to_file", { path: "handed.txt", content: "x\n" }), delayMs: 5000 }, done("handed")],
      }).responder,
    });
    const tasks = path.join(fx.home.dir, "tasks");
    const { value, seen } = await drive(async (request, ctx) => {
      // A careless editor: it allows whatever it is asked later, cancelled turn or not.
      if (request.options[0]!.optionId !== "start_new_task") return { outcome: { outcome: "selected", optionId: "allow_once" } };
      const before = new Set(readdirSync(tasks));
      // The moment the new task's record appears (it is being opened), the editor cancels the turn.
      const watcher = watch(tasks, () => {
        if (readdirSync(tasks).some((n) => !before.has(n) && n !== "index.json")) {
          watcher.close();
          void ctx.notify("session/cancel", { sessionId: request.sessionId });
        }
      });
      return { outcome: { outcome: "selected", optionId: "start_new_task" } };
    });
    expect(value.stopReason).toBe("cancelled");
    expect(existsSync(path.join(fx.workspace.dir, "handed.txt"))).toBe(false);
    expect(seen.permissions.map((p) => p.toolCall.title)).not.toContainEqual(expect.stringContaining("handed.txt"));
  });

  it("a control: 'start' starts the new task, which does its work", async () => {
    fx.server = await startScriptedModelServer({ responder: handoffScript().responder });
    const { value } = await drive(async (request) => ({ outcome: { outcome: "selected", optionId: request.options[0]!.optionId === "start_new_task" ? "start_new_task" : "allow_once" } }));
    expect(value.stopReason).toBe("end_turn");
    expect(storedTasks()).toHaveLength(2);
    expect(readFileSync(path.join(fx.workspace.dir, "handed.txt"), "utf8")).toBe("x\n");
  });
});

describe("ACP: an option id the request did not offer is a refusal", () => {
  const protectedWrite = () => startScriptedModelServer({ turns: [call("write_to_file", { path: ".cairnignore", content: "nothing-hidden\n" }), done("tried")] });

  for (const optionId of ["allow_always", "allow_always_task", "yes_do_it"]) {
    it(`"${optionId}" on a protected file (offered: allow once, reject): not written, no rule saved, and the log says why`, async () => {
      writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), "secret.txt\n");
      fx.server = await protectedWrite();
      const { value, seen, stderr } = await withEditor(choose(optionId), async (ctx) => {
        const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
        return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit the ignore file" }] });
      });
      expect(value.stopReason).toBe("end_turn");
      expect(seen.permissions.map((p) => p.options.map((o) => o.optionId))).toEqual([["allow_once", "reject_once", "reject_always"]]);
      expect(readFileSync(path.join(fx.workspace.dir, ".cairnignore"), "utf8")).toBe("secret.txt\n");
      expect(existsSync(path.join(fx.home.dir, "permissions.json"))).toBe(false);
      expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("The user denied this operation");
      expect(stderr()).toMatch(new RegExp(`cairn: the editor answered the permission request for ".*\\.cairnignore.*" with "${optionId}", which it was not offered \\(allow_once, reject_once, reject_always\\): the call is refused\\.`));
    });
  }

  it("a made-up id on an ordinary edit is refused the same way", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "a.txt", content: "x\n" }), done("tried")] });
    const { stderr } = await withEditor(choose("allow_everything_forever"), async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write" }] });
    });
    expect(existsSync(path.join(fx.workspace.dir, "a.txt"))).toBe(false);
    expect(stderr()).toContain('with "allow_everything_forever", which it was not offered');
  });

  it("a control: allow_once, which a protected file's request offers, writes it", async () => {
    writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), "secret.txt\n");
    fx.server = await protectedWrite();
    const { stderr } = await withEditor(choose("allow_once"), async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit the ignore file" }] });
    });
    expect(readFileSync(path.join(fx.workspace.dir, ".cairnignore"), "utf8")).toBe("nothing-hidden\n");
    expect(stderr()).not.toContain("not offered");
  });
});

describe("ACP: session/load works in the folder the editor has open", () => {
  it("loaded with another cwd, the task carries on there: the edit lands in the editor's folder, the old workspace is untouched, and the model is told where it works now", async () => {
    const moved = tempDir("ws-moved");
    extra.push(moved);
    writeFileSync(path.join(fx.workspace.dir, "where.txt"), "old\n");
    writeFileSync(path.join(moved.dir, "where.txt"), "new\n");
    fx.server = await startScriptedModelServer({
      turns: [done("first"), call("write_to_file", { path: "loaded.txt", content: "after load\n" }), done("wrote loaded.txt")],
    });
    const first = await withEditor(choose("allow_once"), async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
      return sessionId;
    });
    const sessionId = first.value;
    const loaded = await withEditor(choose("allow_once"), async (ctx, seen) => {
      await ctx.request("session/load", { sessionId, cwd: moved.dir, mcpServers: [] });
      const stop = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write loaded.txt" }] });
      expect(stop.stopReason).toBe("end_turn");
      return seen.permissions;
    });
    expect(readFileSync(path.join(moved.dir, "loaded.txt"), "utf8")).toBe("after load\n");
    expect(existsSync(path.join(fx.workspace.dir, "loaded.txt"))).toBe(false);
    // The person was shown the edit in the folder they have open.
    expect(JSON.stringify(loaded.value[0]!.toolCall.content)).toContain(path.join(moved.dir, "loaded.txt"));
    // The model was told the workspace moved; the task's record names the new one.
    const after = JSON.stringify(fx.server.requests[1]!.body);
    expect(after).toContain(moved.dir);
    expect(after).toContain("now works in");
    const meta = JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", sessionId, "metadata.json"), "utf8")) as { workspace: string };
    expect(meta.workspace).toBe(moved.dir);
    expect(loaded.stderr()).toContain(`now works in ${moved.dir}`);
  });

  it("a control: loaded with its own cwd, it carries on where it was, with nothing said about moving", async () => {
    fx.server = await startScriptedModelServer({ turns: [done("first"), call("write_to_file", { path: "loaded.txt", content: "same place\n" }), done("done")] });
    const first = await withEditor(choose("allow_once"), async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
      return sessionId;
    });
    const loaded = await withEditor(choose("allow_once"), async (ctx) => {
      await ctx.request("session/load", { sessionId: first.value, cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId: first.value, prompt: [{ type: "text", text: "write loaded.txt" }] });
    });
    expect(loaded.value.stopReason).toBe("end_turn");
    expect(readFileSync(path.join(fx.workspace.dir, "loaded.txt"), "utf8")).toBe("same place\n");
    expect(JSON.stringify(fx.server.requests[1]!.body)).not.toContain("now works in");
    expect(loaded.stderr()).not.toContain("now works in");
  });
});
