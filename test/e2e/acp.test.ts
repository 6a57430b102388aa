import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import {
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientCapabilities,
  type ClientContext,
  type RequestPermissionRequest,
  type PromptResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { cairnBin, cleanEnv, runCairn, xmlCall } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { serverEntry } from "../../packages/core/src/mcp/test-servers.js";
import { startScriptedModelServer } from "../support/scripted-model-server.js";
import { conversationRouter, firstMessageText } from "../support/conversation-router.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });
const done = (result: string) => call("attempt_completion", { result });

type EditorOptions = {
  /** The option the person picks for each permission request, in order. */
  answers?: string[];
  /** Unsaved buffers by absolute path: given, the editor advertises fs.readTextFile / writeTextFile. */
  buffers?: Map<string, string>;
  /** More run options for `cairn acp`. */
  args?: string[];
  /** The editor shows session notices. */
  notices?: boolean;
  /** Done while a permission request is open, before it is answered (the person typing in the meantime). */
  beforeAnswer?: (request: RequestPermissionRequest) => void;
};

/**
 * An editor as ACP clients are built (the SDK's client() builder), talking to `cairn acp` started
 * as a child process against the scripted model server.
 */
async function withEditor<T>(options: EditorOptions, work: (ctx: ClientContext, editor: Editor) => Promise<T>): Promise<{ value: T; editor: Editor; stderr: string }> {
  const child = spawn(process.execPath, [cairnBin, "acp", "--provider", "anthropic", "--base-url", fx.server.url, ...(options.args ?? [])], {
    cwd: fx.workspace.dir,
    env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const editor = new Editor(options);
  const capabilities: ClientCapabilities = {
    ...(options.buffers ? { fs: { readTextFile: true, writeTextFile: true } } : {}),
    ...(options.notices ? { session: { notices: {} } } : {}),
  };
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => void editor.updates.push(params))
    .onRequest("session/request_permission", ({ params }) => editor.permission(params))
    .onRequest("fs/read_text_file", ({ params }) => {
      editor.reads.push(params.path);
      return { content: editor.read(params.path) };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      editor.writes.push({ path: params.path, content: params.content });
      options.buffers?.set(params.path, params.content);
      return {};
    });
  const stream = ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  try {
    const value = await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: capabilities });
      expect(init.agentCapabilities?.loadSession).toBe(true);
      return await work(ctx, editor);
    });
    return { value, editor, stderr };
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

class Editor {
  readonly updates: SessionNotification[] = [];
  readonly permissions: RequestPermissionRequest[] = [];
  readonly writes: Array<{ path: string; content: string }> = [];
  readonly reads: string[] = [];
  private readonly answers: string[];
  constructor(private readonly options: EditorOptions) {
    this.answers = [...(options.answers ?? [])];
  }
  permission(params: RequestPermissionRequest) {
    this.permissions.push(params);
    this.options.beforeAnswer?.(params);
    const optionId = this.answers.shift();
    if (!optionId) throw new Error(`unexpected permission request for ${params.toolCall.title}`);
    return { outcome: { outcome: "selected" as const, optionId } };
  }
  read(file: string): string {
    const text = this.options.buffers?.get(file);
    return text ?? readFileSync(file, "utf8");
  }
  kinds(): string[] {
    return this.updates.map((n) => n.update.sessionUpdate);
  }
  text(kind = "agent_message_chunk"): string {
    return this.updates
      .map((n) => n.update)
      .filter((u) => u.sessionUpdate === kind)
      .map((u) => {
        const content = "content" in u && !Array.isArray(u.content) ? (u.content as { type?: string; text?: string } | null | undefined) : undefined;
        return content?.type === "text" ? (content.text ?? "") : "";
      })
      .join("");
  }
}

const bodyText = (index: number) => JSON.stringify(fx.server.requests[index]!.body);

/** Every file under `dir` as text, for a leak grep (the task's journal and history under CAIRN_HOME). */
function readTree(dir: string): string {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), "latin1"))
    .join("\n");
}

describe("cairn acp: an editor drives Cairn over the Agent Client Protocol", () => {
  it("asks before an edit: the allowed one lands on disk with its diff shown, the rejected one does not and the model is told", async () => {
    writeFileSync(path.join(fx.workspace.dir, "keep.txt"), "original\n");
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "new.txt", content: "hello from cairn\n" }),
        call("write_to_file", { path: "keep.txt", content: "overwritten\n" }),
        done("wrote new.txt; keep.txt was refused"),
      ],
    });
    const { value: stop, editor } = await withEditor({ answers: ["allow_once", "reject_once"] }, async (ctx) => {
      const session = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      expect(session.modes?.currentModeId).toBe("act");
      return await ctx.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "write the files" }] });
    });
    expect(stop.stopReason).toBe("end_turn");
    expect(readFileSync(path.join(fx.workspace.dir, "new.txt"), "utf8")).toBe("hello from cairn\n");
    expect(readFileSync(path.join(fx.workspace.dir, "keep.txt"), "utf8")).toBe("original\n");

    // The person saw each edit as a diff, with the choices (always allow: for this task, for this workspace).
    expect(editor.permissions).toHaveLength(2);
    const [first, second] = editor.permissions;
    expect(first!.toolCall.content).toEqual([{ type: "diff", path: path.join(fx.workspace.dir, "new.txt"), oldText: null, newText: "hello from cairn\n" }]);
    expect(second!.toolCall.content).toEqual([{ type: "diff", path: path.join(fx.workspace.dir, "keep.txt"), oldText: "original\n", newText: "overwritten\n" }]);
    expect(first!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "allow_always", "reject_once", "reject_always"]);

    // Cards: an edit tool call with its location and input, updated to completed and to failed.
    const calls = editor.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "tool_call");
    expect(calls.map((c) => [c.kind, c.rawInput])).toEqual([
      ["edit", { path: "new.txt", content: "hello from cairn\n" }],
      ["edit", { path: "keep.txt", content: "overwritten\n" }],
    ]);
    expect(calls[0]!.locations).toEqual([{ path: path.join(fx.workspace.dir, "new.txt") }]);
    const ends = editor.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed"));
    expect(ends.map((u) => u.sessionUpdate === "tool_call_update" && u.status)).toEqual(["completed", "failed"]);
    expect(editor.text()).toContain("wrote new.txt; keep.txt was refused");

    // The model was told the second write was refused.
    expect(bodyText(2)).toContain("The user denied this operation");
    expect(bodyText(2)).not.toContain("overwritten\\n</final_file_content>");
  });

  it("an edit approved without asking (--auto-approve edit) still shows its diff, while it runs and when it ends", async () => {
    writeFileSync(path.join(fx.workspace.dir, "keep.txt"), "original\n");
    fx.server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "new.txt", content: "hello\n" }), call("write_to_file", { path: "keep.txt", content: "changed\n" }), done("wrote both")],
    });
    const { editor } = await withEditor({ args: ["--auto-approve", "read,edit"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write the files" }] });
    });
    expect(editor.permissions).toEqual([]);
    expect(readFileSync(path.join(fx.workspace.dir, "keep.txt"), "utf8")).toBe("changed\n");
    const updates = editor.updates.map((n) => n.update).flatMap((u) => (u.sessionUpdate === "tool_call_update" ? [u] : []));
    const diffs = (status: string) => updates.filter((u) => u.status === status).flatMap((u) => (u.content ?? []).filter((c) => c.type === "diff"));
    const expected = [
      { type: "diff", path: path.join(fx.workspace.dir, "new.txt"), oldText: null, newText: "hello\n" },
      // The old text is the file as it was before the write.
      { type: "diff", path: path.join(fx.workspace.dir, "keep.txt"), oldText: "original\n", newText: "changed\n" },
    ];
    expect(diffs("in_progress")).toEqual(expected);
    expect(diffs("completed")).toEqual(expected);
  });

  it("an edit that will fail is asked about with why, in place of a diff", async () => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "alpha\n");
    fx.server = await startScriptedModelServer({
      turns: [call("replace_in_file", { path: "notes.txt", diff: "------- SEARCH\ngamma\n=======\ndelta\n+++++++ REPLACE" }), done("left it")],
    });
    const { editor } = await withEditor({ answers: ["reject_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "rename gamma" }] });
    });
    expect(editor.permissions).toHaveLength(1);
    expect(editor.permissions[0]!.toolCall.content).toEqual([{ type: "content", content: { type: "text", text: "this edit will fail: SEARCH block 1 not found" } }]);
    expect(readFileSync(path.join(fx.workspace.dir, "notes.txt"), "utf8")).toBe("alpha\n");
  });

  it("reject always: the same kind of call is refused for the rest of the session without asking again", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "a.txt", content: "a\n" }), call("write_to_file", { path: "b.txt", content: "b\n" }), done("gave up")],
    });
    const { editor } = await withEditor({ answers: ["reject_always"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write two files" }] });
    });
    expect(editor.permissions).toHaveLength(1);
    expect(existsSync(path.join(fx.workspace.dir, "a.txt"))).toBe(false);
    expect(existsSync(path.join(fx.workspace.dir, "b.txt"))).toBe(false);
    expect(bodyText(2)).toContain("refused this kind of call for the rest of this session");
  });

  it("stops a turn on session/cancel: stopReason cancelled, and the stream is cut", async () => {
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "alpha\n");
    const long = "thinking about it ".repeat(400);
    fx.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "text", text: "Reading first." }, { type: "tool_use", name: "read_file", input: { path: "a.txt" } }] },
        { content: [{ type: "text", text: long }], chunkSize: 10, chunkDelayMs: 20 },
      ],
    });
    const { value: stop, editor } = await withEditor({ args: ["--auto-approve", "read"] }, async (ctx, editor) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      const prompt = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "think" }] });
      // Cancelled once the second reply streams (the read is done and the model asked again).
      const read = () => editor.updates.some((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "completed");
      for (let waited = 0; !(read() && fx.server.requests.length === 2); waited += 20) {
        if (waited > 60_000) throw new Error(`the second reply never started: ${JSON.stringify(editor.kinds())}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await ctx.notify("session/cancel", { sessionId });
      return await prompt;
    });
    expect(stop.stopReason).toBe("cancelled");
    const streamed = editor.text();
    expect(streamed).toContain("Reading first.");
    expect(streamed).not.toContain(long);
  });

  it("reads the editor's unsaved buffer and writes through the editor, not to disk", async () => {
    const file = path.join(fx.workspace.dir, "notes.txt");
    writeFileSync(file, "saved on disk\n");
    const buffers = new Map([[file, "UNSAVED buffer text\n"]]);
    fx.server = await startScriptedModelServer({
      turns: [
        call("read_file", { path: "notes.txt" }),
        call("replace_in_file", { path: "notes.txt", diff: "------- SEARCH\nUNSAVED buffer text\n=======\nedited in the editor\n+++++++ REPLACE" }),
        done("edited"),
      ],
    });
    const { editor } = await withEditor({ buffers, answers: ["allow_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit notes" }] });
    });
    expect(bodyText(1)).toContain("UNSAVED buffer text");
    expect(bodyText(1)).not.toContain("saved on disk");
    expect(editor.writes).toEqual([{ path: file, content: "edited in the editor\n" }]);
    expect(readFileSync(file, "utf8")).toBe("saved on disk\n");
  });

  it("through the editor's files the ignore rules still hold (the editor is never asked for an ignored file), and only workspace files come from its buffers", async () => {
    const { mkdirSync } = await import("node:fs");
    const outsideDir = path.join(fx.home.dir, "outside");
    mkdirSync(outsideDir);
    const outside = path.join(outsideDir, "outside.txt");
    writeFileSync(outside, "OUTSIDE-ON-DISK\n");
    const secret = path.join(fx.workspace.dir, "secret.env");
    writeFileSync(secret, "DISK-SECRET\n");
    writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), "secret.env\n");
    const open = path.join(fx.workspace.dir, "open.txt");
    writeFileSync(open, "on disk\n");
    const buffers = new Map([
      [secret, "BUFFER-SECRET\n"],
      [outside, "BUFFER-OUTSIDE\n"],
      [open, "OPEN-BUFFER\n"],
    ]);
    fx.server = await startScriptedModelServer({
      turns: [
        call("read_file", { path: "secret.env" }),
        call("read_file", { path: outside }),
        call("write_to_file", { path: "secret.env", content: "PLANTED\n" }),
        call("read_file", { path: "open.txt" }),
        done("done"),
      ],
    });
    // The person allows whatever they are asked about: the ignore rules must hold on their own.
    const { editor } = await withEditor({ buffers, answers: ["allow_once", "allow_once", "allow_once", "allow_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read the secrets" }] });
    });
    expect(editor.reads).toEqual([open]);
    expect(editor.writes).toEqual([]);
    for (const request of fx.server.requests) {
      const body = JSON.stringify(request.body);
      expect(body).not.toContain("BUFFER-SECRET");
      expect(body).not.toContain("DISK-SECRET");
    }
    expect(readFileSync(secret, "utf8")).toBe("DISK-SECRET\n");
    // The ignored file was refused without asking; the outside read was asked about, then read from disk.
    expect(editor.permissions.map((p) => p.toolCall.rawInput)).toEqual([{ path: outside }]);
    expect(bodyText(2)).toContain("OUTSIDE-ON-DISK");
    expect(bodyText(2)).not.toContain("BUFFER-OUTSIDE");
    // Positive control: the workspace file came from the editor's buffer.
    expect(bodyText(4)).toContain("OPEN-BUFFER");
  });

  it("in plan mode (session/set_mode) refuses a write as the CLI does, and says the mode changed", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "plan.txt", content: "should not exist\n" }), call("plan_mode_respond", { response: "My plan: write plan.txt in act mode." })],
    });
    const { value: stop, editor } = await withEditor({ answers: [] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make a plan" }] });
    });
    expect(stop.stopReason).toBe("end_turn");
    expect(existsSync(path.join(fx.workspace.dir, "plan.txt"))).toBe(false);
    expect(editor.permissions).toEqual([]);
    expect(editor.updates.map((n) => n.update)).toContainEqual({ sessionUpdate: "current_mode_update", currentModeId: "plan" });
    expect(bodyText(1)).toMatch(/plan mode/i);
    expect(editor.text()).toContain("My plan: write plan.txt in act mode.");
    // Under the plan, what carrying it out should cost (the default model's price is known).
    expect(editor.text()).toMatch(/My plan: write plan\.txt in act mode\.\n+Act phase estimate: \$\d+\.\d\d–\$\d+\.\d\d \(2–4 requests/);
  });

  it("a plan the task approves itself (--yolo) switches to Act: the editor's mode follows, and a later load opens in Act", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("plan_mode_respond", { response: "PLAN: write plan.txt" }), call("write_to_file", { path: "plan.txt", content: "acted\n" }), done("acted on the plan")],
    });
    const { value: sessionId, editor } = await withEditor({ args: ["--yolo"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
      const stop = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "plan, then do it" }] });
      expect(stop.stopReason).toBe("end_turn");
      return sessionId;
    });
    const modes = editor.updates.map((n) => n.update).flatMap((u) => (u.sessionUpdate === "current_mode_update" ? [u.currentModeId] : []));
    expect(modes).toEqual(["plan", "act"]);
    expect(readFileSync(path.join(fx.workspace.dir, "plan.txt"), "utf8")).toBe("acted\n");
    const { value: loaded } = await withEditor({}, (ctx) => ctx.request("session/load", { sessionId, cwd: fx.workspace.dir, mcpServers: [] }));
    expect(loaded.modes?.currentModeId).toBe("act");
  });

  it("a control: in act mode the same write goes ahead once allowed", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "plan.txt", content: "written\n" }), done("ok")] });
    await withEditor({ answers: ["allow_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write it" }] });
    });
    expect(readFileSync(path.join(fx.workspace.dir, "plan.txt"), "utf8")).toBe("written\n");
  });

  it("session/load of a finished session replays its conversation, and a prompt carries it on", async () => {
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "alpha\n");
    fx.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "text", text: "Let me look." }, { type: "tool_use", name: "read_file", input: { path: "a.txt" } }] },
        done("a.txt says alpha"),
        done("second answer"),
      ],
    });
    const first = await withEditor({}, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "what is in a.txt?" }] });
      return sessionId;
    });
    const sessionId = first.value;
    const { value: replayedCount, editor } = await withEditor({}, async (ctx, editor) => {
      await ctx.request("session/load", { sessionId, cwd: fx.workspace.dir, mcpServers: [] });
      const replayed = editor.updates.length;
      const stop = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and again?" }] });
      expect(stop.stopReason).toBe("end_turn");
      return replayed;
    });
    // The replay arrived before session/load answered.
    const replay = editor.updates.slice(0, replayedCount).map((n) => n.update);
    expect(editor.updates.every((n) => n.sessionId === sessionId)).toBe(true);
    expect(replay[0]).toEqual({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "what is in a.txt?" } });
    expect(replay).toContainEqual(expect.objectContaining({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Let me look." } }));
    const read = replay.find((u) => u.sessionUpdate === "tool_call");
    expect(read).toMatchObject({ kind: "read", status: "completed", rawInput: { path: "a.txt" } });
    expect(JSON.stringify(read)).toContain("alpha");
    expect(editor.text()).toContain("a.txt says alpha");
    // The carried-on task gave the model the earlier conversation.
    expect(bodyText(2)).toContain("what is in a.txt?");
    expect(bodyText(2)).toContain("and again?");
    expect(editor.text()).toContain("second answer");
  });

  it("allow_always in one session is saved for the workspace: a second session runs the same kind of call without asking", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "one.txt", content: "1\n" }),
        done("one"),
        call("write_to_file", { path: "two.txt", content: "2\n" }),
        done("two"),
      ],
    });
    const first = await withEditor({ answers: ["allow_always"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write one" }] });
    });
    expect(first.editor.permissions).toHaveLength(1);
    const second = await withEditor({ answers: [] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write two" }] });
    });
    expect(second.editor.permissions).toEqual([]);
    expect(readFileSync(path.join(fx.workspace.dir, "two.txt"), "utf8")).toBe("2\n");
    const saved = readFileSync(path.join(fx.home.dir, "permissions.json"), "utf8");
    expect(saved).toContain("write_to_file(");
  });

  it("always allow in this task: the rule shown holds for the rest of the task and when its session is loaded again, is kept with the task and not in permissions.json, and a new session asks again", async () => {
    mkdirSync(path.join(fx.workspace.dir, "src"));
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "src/one.txt", content: "1\n" }),
        call("write_to_file", { path: "src/two.txt", content: "2\n" }),
        // Outside the rule's folder: the rule is the one shown, not a blanket yes.
        call("write_to_file", { path: "notes.txt", content: "n\n" }),
        done("first prompt"),
        call("write_to_file", { path: "src/three.txt", content: "3\n" }),
        done("second prompt"),
        call("write_to_file", { path: "src/four.txt", content: "4\n" }),
        done("after load"),
        call("write_to_file", { path: "src/five.txt", content: "5\n" }),
        done("another task"),
      ],
    });
    const first = await withEditor({ answers: ["allow_always_task", "allow_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write one, two and the notes" }] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write three" }] });
      return sessionId;
    });
    const taskId = first.value;
    // Both scopes were offered, each naming the rule; the person picked the task's.
    const asked = first.editor.permissions[0]!;
    expect(asked.toolCall.title).toContain("src/one.txt");
    expect(asked.options.filter((o) => o.kind === "allow_always").map((o) => [o.optionId, o.name])).toEqual([
      ["allow_always_task", "Always allow write_to_file(src/**) in this task"],
      ["allow_always", "Always allow write_to_file(src/**) in this workspace"],
    ]);
    // two.txt (same turn run) and three.txt (the next prompt) ran without asking; notes.txt was asked about.
    expect(first.editor.permissions.map((p) => p.toolCall.title)).toEqual([asked.toolCall.title, expect.stringContaining("notes.txt")]);
    expect(["one", "two", "three"].map((name) => readFileSync(path.join(fx.workspace.dir, "src", `${name}.txt`), "utf8"))).toEqual(["1\n", "2\n", "3\n"]);
    expect(existsSync(path.join(fx.home.dir, "permissions.json"))).toBe(false);

    const shown = await runCairn(["show", taskId], { env: cleanEnv({ CAIRN_HOME: fx.home.dir }) });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("allowed for this task: write_to_file(src/**)");

    // The editor loads the session later: the task's rule is still in force.
    const loaded = await withEditor({ answers: [] }, async (ctx) => {
      await ctx.request("session/load", { sessionId: taskId, cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId: taskId, prompt: [{ type: "text", text: "write four" }] });
    });
    expect(loaded.value.stopReason).toBe("end_turn");
    expect(loaded.editor.permissions).toEqual([]);
    expect(readFileSync(path.join(fx.workspace.dir, "src", "four.txt"), "utf8")).toBe("4\n");

    // A new session is a new task: the same call is asked about again, and refused stays unwritten.
    const other = await withEditor({ answers: ["reject_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write five" }] });
      return sessionId;
    });
    expect(other.value).not.toBe(taskId);
    expect(other.editor.permissions.map((p) => p.toolCall.title)).toEqual([expect.stringContaining("src/five.txt")]);
    expect(existsSync(path.join(fx.workspace.dir, "src", "five.txt"))).toBe(false);
    expect(existsSync(path.join(fx.home.dir, "permissions.json"))).toBe(false);
  });

  it("a question ends the turn as a message, and the next prompt answers it", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("ask_followup_question", { question: "Which colour?", options: ["red", "blue"] }), done("painted it blue")],
    });
    const { value: stops, editor } = await withEditor({}, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      const first = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "paint it" }] });
      const second = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "blue please" }] });
      return [first.stopReason, second.stopReason];
    });
    expect(stops).toEqual(["end_turn", "end_turn"]);
    expect(editor.text()).toContain("Which colour?\n\n- red\n- blue");
    expect(editor.text()).toContain("painted it blue");
    expect(bodyText(1)).toContain("blue please");
  });

  it("stops with max_turn_requests when the run options' --max-turns is reached", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("list_files", { path: "." }), call("list_files", { path: "." }), done("never")] });
    const { value: stop } = await withEditor({ args: ["--max-turns", "1"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "look around" }] });
    });
    expect(stop.stopReason).toBe("max_turn_requests");
    expect(fx.server.requests).toHaveLength(1);
  });

  it("stops with refusal when the model keeps refusing (Anthropic's stop_reason refusal)", async () => {
    fx.server = await startScriptedModelServer({
      // The real wire value; the scripted server's type lists the common ones only.
      responder: () => ({ content: [{ type: "text", text: "I can't help with that." }], stopReason: "refusal" as "end_turn" }),
    });
    const { value: stop, editor } = await withEditor({}, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "do something bad" }] });
    });
    expect(stop.stopReason).toBe("refusal");
    expect(editor.text()).toContain("I can't help with that.");
  });

  it("sends an attached file's text and an image with the prompt, and shows the focus chain as the plan", async () => {
    const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    fx.server = await startScriptedModelServer({
      turns: [call("list_files", { path: ".", task_progress: "- [x] look at the picture\n- [ ] list the files\n- [ ] answer" }), done("a pixel")],
    });
    const { editor } = await withEditor({ args: ["--model", "claude-sonnet-4-5"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "what is this?" },
          { type: "resource", resource: { uri: `file://${path.join(fx.workspace.dir, "spec.md")}`, text: "SPEC-BODY-TEXT", mimeType: "text/markdown" } },
          { type: "image", mimeType: "image/png", data: pixel },
        ],
      });
    });
    const first = bodyText(0);
    expect(first).toContain("SPEC-BODY-TEXT");
    expect(first).toContain('<file path=\\"spec.md\\">');
    expect(first).toContain(pixel);
    const plan = editor.updates.map((n) => n.update).find((u) => u.sessionUpdate === "plan");
    expect(plan).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "look at the picture", priority: "medium", status: "completed" },
        { content: "list the files", priority: "medium", status: "in_progress" },
        { content: "answer", priority: "medium", status: "pending" },
      ],
    });
  });

  it("runs the editor's MCP servers beside the person's own", async () => {
    writeFileSync(path.join(fx.home.dir, "mcp_settings.json"), JSON.stringify({ mcpServers: { mine: { command: process.execPath, args: [serverEntry.everything()] } } }));
    fx.server = await startScriptedModelServer({
      turns: [
        call("use_mcp_tool", { server_name: "editors", tool_name: "echo", arguments: { message: "hello from the editor's server" } }),
        call("use_mcp_tool", { server_name: "mine", tool_name: "echo", arguments: { message: "hello from my server" } }),
        done("both answered"),
      ],
    });
    const { editor } = await withEditor({ answers: ["allow_once", "allow_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", {
        cwd: fx.workspace.dir,
        mcpServers: [{ name: "editors", command: process.execPath, args: [serverEntry.everything()], env: [] }],
      });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo twice" }] });
    });
    expect(editor.permissions).toHaveLength(2);
    expect(bodyText(1)).toContain("Echo: hello from the editor's server");
    expect(bodyText(2)).toContain("Echo: hello from my server");
  }, 30_000);

  it("a session opened and never prompted is not in the history, yet a later connection loads it and its first prompt starts it; a prompted one is listed", async () => {
    fx.server = await startScriptedModelServer({ turns: [done("kept"), done("started later")] });
    const { value: ids } = await withEditor({}, async (ctx) => {
      const empty = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      const used = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId: used.sessionId, prompt: [{ type: "text", text: "keep me" }] });
      return { empty: empty.sessionId, used: used.sessionId };
    });
    const listed = (await runCairn(["history", "--all", "--json"], { env: cleanEnv({ CAIRN_HOME: fx.home.dir }) })).stdout;
    expect(listed).toContain(ids.used);
    expect(listed).toContain("keep me");
    expect(listed).not.toContain(ids.empty);

    const { value: stop, editor } = await withEditor({}, async (ctx) => {
      await ctx.request("session/load", { sessionId: ids.empty, cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId: ids.empty, prompt: [{ type: "text", text: "begin now" }] });
    });
    expect(stop.stopReason).toBe("end_turn");
    expect(editor.text()).toContain("started later");
    // Its first prompt is the task's first message, not a resume's.
    const request = JSON.stringify(fx.server.requests[1]!.body.messages);
    expect(request).toContain("begin now");
    expect(request).not.toContain("kept");
    expect(request).not.toMatch(/interrupted|resum/i);
    const relisted = (await runCairn(["history", "--all", "--json"], { env: cleanEnv({ CAIRN_HOME: fx.home.dir }) })).stdout;
    expect(relisted).toContain(ids.empty);
    expect(relisted).toContain("begin now");
  });

  it("names the session after its first prompt, and shows a skipped untrusted .mcp.json as a notice to an editor that takes notices", async () => {
    writeFileSync(path.join(fx.workspace.dir, ".mcp.json"), JSON.stringify({ mcpServers: { planted: { command: "false" } } }));
    fx.server = await startScriptedModelServer({ turns: [done("hi")] });
    const { editor } = await withEditor({ notices: true }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Fix the login form\nit breaks on submit" }] });
    });
    const updates = editor.updates.map((n) => n.update);
    expect(updates).toContainEqual({ sessionUpdate: "session_info_update", title: "Fix the login form" });
    const notice = updates.find((u) => u.sessionUpdate === "notice");
    expect(notice).toMatchObject({ sessionUpdate: "notice", severity: "warning" });
    expect(notice?.sessionUpdate === "notice" && notice.title).toContain(".mcp.json");
  });

  it("lists the slash commands and the workspace's workflows for the editor's menu", async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(path.join(fx.workspace.dir, ".cairnrules", "workflows"), { recursive: true });
    writeFileSync(path.join(fx.workspace.dir, ".cairnrules", "workflows", "release.md"), "---\ndescription: Cut a release and tag it\n---\nCut a release.\n");
    writeFileSync(path.join(fx.workspace.dir, ".cairnrules", "workflows", "plain.md"), "No front matter.\n");
    fx.server = await startScriptedModelServer({ turns: [done("hi")] });
    const { editor } = await withEditor({}, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
    });
    const commands = editor.updates.map((n) => n.update).find((u) => u.sessionUpdate === "available_commands_update");
    expect(commands?.sessionUpdate === "available_commands_update" && commands.availableCommands.map((c) => c.name)).toEqual(expect.arrayContaining(["compact", "newtask", "release", "plain"]));
    // A workflow's own description names it in the menu, as in the TUI and the web; one without names its file.
    const listed = commands?.sessionUpdate === "available_commands_update" ? commands.availableCommands : [];
    expect(listed.find((c) => c.name === "release")?.description).toBe("Cut a release and tag it");
    expect(listed.find((c) => c.name === "plain")?.description).toBe(`workflow (${path.join(".cairnrules", "workflows", "plain.md")})`);
  });
});

describe("cairn acp: the diff a person approves is the one applied to the editor's buffer", () => {
  const block = (search: string, replacement: string) => `------- SEARCH\n${search}\n=======\n${replacement}\n+++++++ REPLACE\n`;
  const disk = "alpha\nbeta\ngamma\nsaved line\n";
  const unsaved = "alpha\nBETA typed, not saved\ngamma\ndelta typed\n";
  const diff = (file: string, oldText: string | null, newText: string) => ({ type: "diff", path: file, oldText, newText });
  const toolUpdates = (editor: Editor) => editor.updates.map((n) => n.update).flatMap((u) => (u.sessionUpdate === "tool_call_update" ? [u] : []));

  it("replace_in_file: the permission request shows the unsaved buffer's diff (one block, then several), the approved text is written to the editor, and a SEARCH matching only the disk is said to fail", async () => {
    const file = path.join(fx.workspace.dir, "notes.txt");
    writeFileSync(file, disk);
    const buffers = new Map([[file, unsaved]]);
    fx.server = await startScriptedModelServer({
      turns: [
        call("replace_in_file", { path: "notes.txt", diff: block("BETA typed, not saved", "beta from cairn") }),
        call("replace_in_file", { path: "notes.txt", diff: block("alpha", "ALPHA") + block("delta typed", "delta from cairn") }),
        // Matches the saved file, not the buffer the edit reads.
        call("replace_in_file", { path: "notes.txt", diff: block("saved line", "on disk only") }),
        done("edited notes"),
      ],
    });
    const { editor } = await withEditor({ buffers, answers: ["allow_once", "allow_once", "allow_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit notes" }] });
    });

    const afterFirst = "alpha\nbeta from cairn\ngamma\ndelta typed\n";
    const afterSecond = "ALPHA\nbeta from cairn\ngamma\ndelta from cairn\n";
    expect(editor.permissions.map((p) => p.toolCall.content)).toEqual([
      [diff(file, unsaved, afterFirst)],
      [diff(file, afterFirst, afterSecond)],
      [{ type: "content", content: { type: "text", text: "this edit will fail: SEARCH block 1 not found" } }],
    ]);
    // What was approved is what the editor received; the third edit failed as its request said.
    expect(editor.writes).toEqual([
      { path: file, content: afterFirst },
      { path: file, content: afterSecond },
    ]);
    const ends = toolUpdates(editor).filter((u) => u.status === "completed" || u.status === "failed");
    expect(ends.map((u) => u.status)).toEqual(["completed", "completed", "failed"]);
    expect(bodyText(3)).toContain("replace_in_file did not change notes.txt: block 1 of 1 failed");
    // The editor holds the change until the person saves: the file on disk is untouched.
    expect(readFileSync(file, "utf8")).toBe(disk);
  });

  it("write_to_file run without asking (--auto-approve edit): the running and completed diffs start from the buffer, and a new file from nothing", async () => {
    const file = path.join(fx.workspace.dir, "notes.txt");
    const fresh = path.join(fx.workspace.dir, "fresh.txt");
    writeFileSync(file, disk);
    const buffers = new Map([[file, unsaved]]);
    fx.server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "notes.txt", content: "rewritten\n" }), call("write_to_file", { path: "fresh.txt", content: "new file\n" }), done("wrote both")],
    });
    const { editor } = await withEditor({ buffers, args: ["--auto-approve", "read,edit"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write the files" }] });
    });
    expect(editor.permissions).toEqual([]);
    const diffs = (status: string) => toolUpdates(editor).filter((u) => u.status === status).flatMap((u) => (u.content ?? []).filter((c) => c.type === "diff"));
    const expected = [diff(file, unsaved, "rewritten\n"), diff(fresh, null, "new file\n")];
    expect(diffs("in_progress")).toEqual(expected);
    expect(diffs("completed")).toEqual(expected);
    expect(editor.writes).toEqual([
      { path: file, content: "rewritten\n" },
      { path: fresh, content: "new file\n" },
    ]);
    expect(readFileSync(file, "utf8")).toBe(disk);
    expect(existsSync(fresh)).toBe(false);
  });

  it("the preview never asks the editor for a file the edit may not read: a link out of the workspace or to an ignored file; a workspace file's buffer is still previewed", async () => {
    const outsideDir = path.join(fx.home.dir, "outside");
    mkdirSync(outsideDir);
    const outside = path.join(outsideDir, "outside.txt");
    writeFileSync(outside, "OUTSIDE-ON-DISK\n");
    const secret = path.join(fx.workspace.dir, "secret.env");
    writeFileSync(secret, "DISK-SECRET\n");
    writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), "secret.env\n");
    symlinkSync(outside, path.join(fx.workspace.dir, "link.txt"));
    symlinkSync(secret, path.join(fx.workspace.dir, "alias.txt"));
    const open = path.join(fx.workspace.dir, "open.txt");
    writeFileSync(open, "open on disk\n");
    const buffers = new Map([
      [outside, "BUFFER-OUTSIDE\n"],
      [secret, "BUFFER-SECRET\n"],
      [open, "OPEN-BUFFER\n"],
    ]);
    fx.server = await startScriptedModelServer({
      turns: [
        call("replace_in_file", { path: "link.txt", diff: block("some line", "x") }),
        call("replace_in_file", { path: "alias.txt", diff: block("some line", "x") }),
        call("replace_in_file", { path: "open.txt", diff: block("OPEN-BUFFER", "OPEN-EDITED") }),
        done("done"),
      ],
    });
    const { editor } = await withEditor({ buffers, answers: ["reject_once", "allow_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit the links" }] });
    });
    // The link out was asked about as such (the ignored one refused without asking), never with the buffer behind it.
    expect(editor.permissions.map((p) => p.toolCall.rawInput)).toEqual([
      { path: "link.txt", diff: block("some line", "x") },
      { path: "open.txt", diff: block("OPEN-BUFFER", "OPEN-EDITED") },
    ]);
    expect(JSON.stringify(editor.permissions[0])).not.toContain("BUFFER-OUTSIDE");
    expect(new Set(editor.reads)).toEqual(new Set([open]));
    const journal = readTree(fx.home.dir);
    for (const marker of ["BUFFER-OUTSIDE", "BUFFER-SECRET", "DISK-SECRET"]) {
      expect(journal).not.toContain(marker);
      for (const request of fx.server.requests) expect(JSON.stringify(request.body)).not.toContain(marker);
    }
    expect(readFileSync(outside, "utf8")).toBe("OUTSIDE-ON-DISK\n");
    expect(readFileSync(secret, "utf8")).toBe("DISK-SECRET\n");
    // Positive control: the workspace file's buffer was previewed and edited through the editor.
    expect(editor.permissions[1]!.toolCall.content).toEqual([diff(open, "OPEN-BUFFER\n", "OPEN-EDITED\n")]);
    expect(editor.writes).toEqual([{ path: open, content: "OPEN-EDITED\n" }]);
  });

  it("a control: an editor without fs capability is shown the diff of the file on disk, and the edit lands there", async () => {
    const file = path.join(fx.workspace.dir, "notes.txt");
    writeFileSync(file, disk);
    fx.server = await startScriptedModelServer({
      turns: [call("replace_in_file", { path: "notes.txt", diff: block("beta", "beta from cairn") }), done("edited notes")],
    });
    const { editor } = await withEditor({ answers: ["allow_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit notes" }] });
    });
    expect(editor.permissions.map((p) => p.toolCall.content)).toEqual([[diff(file, disk, "alpha\nbeta from cairn\ngamma\nsaved line\n")]]);
    expect(editor.reads).toEqual([]);
    expect(editor.writes).toEqual([]);
    expect(readFileSync(file, "utf8")).toBe("alpha\nbeta from cairn\ngamma\nsaved line\n");
  });
});

describe("cairn acp: an edit writes only over the text its approved diff was shown from", () => {
  const block = (search: string, replacement: string) => `------- SEARCH\n${search}\n=======\n${replacement}\n+++++++ REPLACE\n`;
  const diff = (file: string, oldText: string | null, newText: string) => ({ type: "diff", path: file, oldText, newText });
  const ends = (editor: Editor) =>
    editor.updates.map((n) => n.update).flatMap((u) => (u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed") ? [u.status] : []));
  const changedLine = (where: string) => `notes.txt changed ${where} after the person was shown this edit's diff, so nothing was written: read notes.txt again and redo the edit.`;

  it("the person types in the buffer while the permission request is open: the approved edit is not applied, the editor gets no write, and the model is told in one line; an untouched buffer is written", async () => {
    const file = path.join(fx.workspace.dir, "notes.txt");
    writeFileSync(file, "on disk\n");
    const buffers = new Map([[file, "shown\n"]]);
    const typed = ["shown\ntyped while asked\n", "rewritten by the person\n"];
    fx.server = await startScriptedModelServer({
      turns: [
        call("replace_in_file", { path: "notes.txt", diff: block("shown", "from cairn") }),
        call("write_to_file", { path: "notes.txt", content: "whole file from cairn\n" }),
        // The control: the buffer is left as shown.
        call("replace_in_file", { path: "notes.txt", diff: block("rewritten by the person", "edited as approved") }),
        done("done"),
      ],
    });
    const { editor } = await withEditor(
      {
        buffers,
        answers: ["allow_once", "allow_once", "allow_once"],
        beforeAnswer: () => {
          const text = typed.shift();
          if (text !== undefined) buffers.set(file, text);
        },
      },
      async (ctx) => {
        const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
        return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit notes" }] });
      },
    );
    // Each request showed the buffer as it was when asked.
    expect(editor.permissions.map((p) => p.toolCall.content)).toEqual([
      [diff(file, "shown\n", "from cairn\n")],
      [diff(file, "shown\ntyped while asked\n", "whole file from cairn\n")],
      [diff(file, "rewritten by the person\n", "edited as approved\n")],
    ]);
    expect(ends(editor)).toEqual(["failed", "failed", "completed"]);
    // Only the control reached the editor; the person's typing was never overwritten.
    expect(editor.writes).toEqual([{ path: file, content: "edited as approved\n" }]);
    // The model read the line for each (requests carry the history: one, then two), and the control's success.
    const told = (index: number) => bodyText(index).split(changedLine("in the editor")).length - 1;
    expect([told(1), told(2), told(3)]).toEqual([1, 2, 2]);
    expect(bodyText(3)).toContain("Edited notes.txt: 1 block");
    expect(readFileSync(file, "utf8")).toBe("on disk\n");
  });

  it("without editor fs, a file changed on disk while asked is not written either; unchanged, it is", async () => {
    const file = path.join(fx.workspace.dir, "notes.txt");
    writeFileSync(file, "shown\n");
    fx.server = await startScriptedModelServer({
      turns: [
        call("replace_in_file", { path: "notes.txt", diff: block("shown", "from cairn") }),
        call("replace_in_file", { path: "notes.txt", diff: block("saved while asked", "edited as approved") }),
        done("done"),
      ],
    });
    let asked = 0;
    const { editor } = await withEditor(
      {
        answers: ["allow_once", "allow_once"],
        beforeAnswer: () => {
          if (asked++ === 0) writeFileSync(file, "shown\nsaved while asked\n");
        },
      },
      async (ctx) => {
        const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
        return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit notes" }] });
      },
    );
    expect(editor.permissions[0]!.toolCall.content).toEqual([diff(file, "shown\n", "from cairn\n")]);
    expect(ends(editor)).toEqual(["failed", "completed"]);
    expect(bodyText(1)).toContain(changedLine("on disk"));
    expect(editor.reads).toEqual([]);
    expect(readFileSync(file, "utf8")).toBe("shown\nedited as approved\n");
  });
});

describe("cairn acp: live edit previews while a replace_in_file streams (xml protocol)", () => {
  const block = (search: string, replacement: string) => `------- SEARCH\n${search}\n=======\n${replacement}\n+++++++ REPLACE\n`;
  /** Every event of the session's tasks, as their journals hold them. */
  const journalEvents = () =>
    readdirSync(path.join(fx.home.dir, "tasks")).flatMap((id) => {
      const events = path.join(fx.home.dir, "tasks", id, "events.jsonl");
      if (!existsSync(events)) return [];
      return readFileSync(events, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as { type: string; preview?: string });
    });
  const streamedEdit = async (buffers: Map<string, string> | undefined) => {
    fx.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "text", text: xmlCall("replace_in_file", { path: "notes.txt", diff: block("alpha", "ALPHA") }) }], chunkSize: 7 },
        { content: [{ type: "text", text: xmlCall("attempt_completion", { result: "done" }) }] },
      ],
    });
    return await withEditor({ ...(buffers ? { buffers } : {}), args: ["--protocol", "xml", "--auto-approve", "read,edit"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit notes" }] });
    });
  };

  it("with the editor's files none is computed from the disk: the journal never holds the disk's text, and the buffer is what gets edited", async () => {
    const file = path.join(fx.workspace.dir, "notes.txt");
    writeFileSync(file, "alpha\nDISK-ONLY-LINE\n");
    const { editor } = await streamedEdit(new Map([[file, "alpha\nbuffer line\n"]]));
    expect(editor.writes).toEqual([{ path: file, content: "ALPHA\nbuffer line\n" }]);
    const events = journalEvents();
    expect(events.some((e) => e.type === "tool_call_update")).toBe(true);
    expect(events.filter((e) => e.type === "edit_preview")).toEqual([]);
    expect(readTree(fx.home.dir)).not.toContain("DISK-ONLY-LINE");
    for (const request of fx.server.requests) expect(JSON.stringify(request.body)).not.toContain("DISK-ONLY-LINE");
  });

  it("a control: without editor fs the live preview of the disk's file is computed and journaled", async () => {
    const file = path.join(fx.workspace.dir, "notes.txt");
    writeFileSync(file, "alpha\nDISK-ONLY-LINE\n");
    await streamedEdit(undefined);
    expect(journalEvents().filter((e) => e.type === "edit_preview").map((e) => e.preview)).toContain("ALPHA\nDISK-ONLY-LINE\n");
    expect(readFileSync(file, "utf8")).toBe("ALPHA\nDISK-ONLY-LINE\n");
  });
});

describe("cairn acp: new_task hands the editor's thread over to a fresh task", () => {
  type Meta = { id: string; title: string; parent?: { id: string; relation: string }; children?: Array<{ id: string; relation: string }> };
  const tasks = (): Meta[] =>
    readdirSync(path.join(fx.home.dir, "tasks"))
      .filter((n) => n !== "index.json")
      .map((id) => JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", id, "metadata.json"), "utf8")) as Meta);
  const requestsOf = (key: string) => fx.server.requests.filter((r) => firstMessageText(r).includes(key));
  const updatesOf = (editor: Editor, kind: string) => editor.updates.map((n) => n.update).filter((u) => u.sessionUpdate === kind);
  const prompt = (text: string) => [{ type: "text" as const, text }];

  it("asks the editor; on start the same session goes on in a new task linked to its parent, and session/load of the session id carries the new task on", async () => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "NOTES-CONTENT-42\n");
    const context = "HANDOFF-CONTEXT: write done.txt saying finished";
    const router = conversationRouter({
      "ORIGINAL-REQUEST": [call("read_file", { path: "notes.txt" }), call("new_task", { context })],
      "HANDOFF-CONTEXT": [call("write_to_file", { path: "done.txt", content: "finished\n" }), done("the second task wrote done.txt"), done("carried on after load")],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const args = ["--auto-approve", "read,edit"];
    const first = await withEditor({ answers: ["start_new_task"], args }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      const stop = await ctx.request("session/prompt", { sessionId, prompt: prompt("ORIGINAL-REQUEST: tidy the notes") });
      return { sessionId, stop };
    });
    const { sessionId, stop } = first.value;
    expect((stop as PromptResponse).stopReason, first.stderr).toBe("end_turn");
    expect(readFileSync(path.join(fx.workspace.dir, "done.txt"), "utf8")).toBe("finished\n");

    // The person was asked once, on the new_task call's card, with the context and the two choices.
    expect(first.editor.permissions).toHaveLength(1);
    const asked = first.editor.permissions[0]!;
    const card = updatesOf(first.editor, "tool_call").find((u) => u.sessionUpdate === "tool_call" && u.rawInput && (u.rawInput as { context?: string }).context === context);
    expect(card?.sessionUpdate === "tool_call" && card.toolCallId).toBe(asked.toolCall.toolCallId);
    expect(JSON.stringify(asked.toolCall.content)).toContain(context);
    expect(asked.options.map((o) => [o.optionId, o.kind])).toEqual([["start_new_task", "allow_once"], ["stay", "reject_once"]]);

    // One thread: every update under the editor's session id, retitled for the new task, which finished the turn.
    expect(first.editor.updates.every((n) => n.sessionId === sessionId)).toBe(true);
    expect(updatesOf(first.editor, "session_info_update").map((u) => (u.sessionUpdate === "session_info_update" ? u.title : ""))).toEqual(["ORIGINAL-REQUEST: tidy the notes", context]);
    expect(first.editor.text()).toContain("the second task wrote done.txt");

    // Stored as two tasks linked both ways; the session id is the first task's.
    const stored = tasks();
    expect(stored).toHaveLength(2);
    const parent = stored.find((t) => t.id === sessionId)!;
    const child = stored.find((t) => t.id !== sessionId)!;
    expect(child.parent).toEqual({ id: sessionId, relation: "handoff" });
    expect(parent.children).toEqual([{ id: child.id, relation: "handoff" }]);
    // The new task saw the context alone.
    expect(requestsOf("HANDOFF-CONTEXT").length).toBe(2);
    for (const request of requestsOf("HANDOFF-CONTEXT")) {
      expect(JSON.stringify(request.body.messages)).not.toContain("ORIGINAL-REQUEST");
      expect(JSON.stringify(request.body.messages)).not.toContain("NOTES-CONTENT-42");
    }

    // Later, the editor loads the thread by its id: both tasks are replayed and the new one carries on.
    const second = await withEditor({ args }, async (ctx, editor) => {
      await ctx.request("session/load", { sessionId, cwd: fx.workspace.dir, mcpServers: [] });
      const replayed = editor.updates.length;
      const stop = await ctx.request("session/prompt", { sessionId, prompt: prompt("AFTER-LOAD: anything left?") });
      return { replayed, stop };
    });
    expect((second.value.stop as PromptResponse).stopReason, second.stderr).toBe("end_turn");
    const replay = second.editor.updates.slice(0, second.value.replayed).map((n) => n.update);
    const said = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => (u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? u.content.text : ""));
    expect(said).toEqual(["ORIGINAL-REQUEST: tidy the notes", expect.stringContaining(context)]);
    expect(second.editor.updates.every((n) => n.sessionId === sessionId)).toBe(true);
    expect(second.editor.text()).toContain("carried on after load");
    const last = fx.server.requests.at(-1)!;
    expect(firstMessageText(last)).toContain("HANDOFF-CONTEXT");
    expect(JSON.stringify(last.body.messages)).toContain("AFTER-LOAD");
    expect(JSON.stringify(last.body.messages)).not.toContain("ORIGINAL-REQUEST");
    expect(tasks()).toHaveLength(2);
  });

  it("stay here: no new task starts, and the model is told to go on in this one", async () => {
    const router = conversationRouter({
      "ORIGINAL-REQUEST": [call("new_task", { context: "HANDOFF-CONTEXT: carry on" }), done("stayed and finished")],
      "HANDOFF-CONTEXT": [done("must never run")],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const { value: stop, editor } = await withEditor({ answers: ["stay"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: prompt("ORIGINAL-REQUEST: tidy") });
    });
    expect((stop as PromptResponse).stopReason).toBe("end_turn");
    expect(editor.permissions).toHaveLength(1);
    expect(editor.text()).toContain("stayed and finished");
    expect(requestsOf("HANDOFF-CONTEXT")).toHaveLength(0);
    expect(JSON.stringify(fx.server.requests.at(-1)!.body.messages)).toContain("did not start the new task");
    expect(tasks()).toHaveLength(1);
    expect(updatesOf(editor, "session_info_update")).toHaveLength(1);
  });

  it("the new task keeps the session's mode: handed over in plan mode, it is offered no edit tools", async () => {
    const router = conversationRouter({
      "PLAN-ORIGINAL": [call("new_task", { context: "PLAN-HANDOFF: explore the rest" })],
      "PLAN-HANDOFF": [call("plan_mode_respond", { response: "The plan of the new task." })],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const { value: stop, editor } = await withEditor({ answers: ["start_new_task"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
      return await ctx.request("session/prompt", { sessionId, prompt: prompt("PLAN-ORIGINAL: look around") });
    });
    expect((stop as PromptResponse).stopReason).toBe("end_turn");
    const tools = (r: (typeof fx.server.requests)[number]) => ((r.body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name);
    expect(requestsOf("PLAN-HANDOFF")).toHaveLength(1);
    expect(tools(requestsOf("PLAN-HANDOFF")[0]!)).toContain("plan_mode_respond");
    expect(tools(requestsOf("PLAN-HANDOFF")[0]!)).not.toContain("write_to_file");
    expect(editor.text()).toContain("The plan of the new task.");
  });

  it("holds chained hand-offs to the limit: past it, new_task is refused without asking and the task finishes itself", async () => {
    const router = conversationRouter({
      "FIRST-TASK": [call("new_task", { context: "HOP-ONE: carry on" })],
      "HOP-ONE": [call("new_task", { context: "HOP-TWO: carry on again" }), done("finished in hop one")],
      "HOP-TWO": [done("must never run")],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const { value: stop, editor } = await withEditor({ answers: ["start_new_task"], args: ["--max-handoffs", "1"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: prompt("FIRST-TASK: start") });
    });
    expect((stop as PromptResponse).stopReason).toBe("end_turn");
    expect(editor.permissions).toHaveLength(1);
    expect(requestsOf("HOP-TWO")).toHaveLength(0);
    expect(JSON.stringify(requestsOf("HOP-ONE").at(-1)!.body.messages)).toContain("maxHandoffs");
    expect(editor.text()).toContain("finished in hop one");
    expect(tasks()).toHaveLength(2);
  });
});

describe("cairn acp: what the editor keeps is what the task kept", () => {
  it("a reply whose stream drops mid-way and is retried: the editor never gets the thrown-away attempt's text, only the retry's, in one message", async () => {
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 20, maxDelayMs: 200 } }));
    const partial = "THROWN-AWAY attempt, looking at the files first. ".repeat(3);
    fx.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "text", text: partial }, { type: "tool_use", name: "attempt_completion", input: { result: "never seen" } }], cutAfterChars: 60 },
        { content: [{ type: "text", text: "KEPT reply." }, { type: "tool_use", name: "attempt_completion", input: { result: "done after the retry" } }] },
      ],
    });
    const { value: stop, editor } = await withEditor({}, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      return await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    });
    expect(stop.stopReason).toBe("end_turn");
    // The stream was cut after its first words and asked again.
    expect(fx.server.requests).toHaveLength(2);
    expect(editor.text()).not.toContain("THROWN-AWAY");
    expect(editor.text()).toContain("KEPT reply.");
    expect(editor.text()).toContain("done after the retry");
    const chunks = editor.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && u.content.text.includes("KEPT"));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ messageId: expect.any(String) });
  });

  it("a provider that names every call call_0: each call its own toolCallId, live and replayed by session/load under the same ids", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "tool_use", id: "call_0", name: "write_to_file", input: { path: "a.txt", content: "a\n" } }] },
        { content: [{ type: "tool_use", id: "call_0", name: "write_to_file", input: { path: "b.txt", content: "b\n" } }] },
        { content: [{ type: "tool_use", id: "call_0", name: "execute_command", input: { command: "echo hi", requires_approval: false } }] },
        { content: [{ type: "tool_use", id: "call_0", name: "attempt_completion", input: { result: "three calls" } }] },
      ],
    });
    const live = await withEditor({ answers: ["allow_once", "reject_once", "allow_once"] }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: fx.workspace.dir, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "three calls" }] });
      return sessionId;
    });
    const cards = (editor: Editor, from = 0, to = editor.updates.length) =>
      editor.updates
        .slice(from, to)
        .map((n) => n.update)
        .flatMap((u) => (u.sessionUpdate === "tool_call" ? [{ id: u.toolCallId, title: u.title }] : []));
    const ends = (editor: Editor) =>
      Object.fromEntries(editor.updates.map((n) => n.update).flatMap((u) => (u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed") ? [[u.toolCallId, u.status]] : [])));
    const liveCards = cards(live.editor);
    expect(liveCards.map((c) => c.title)).toEqual(["write a.txt", "write b.txt", expect.stringContaining("echo hi")]);
    expect(new Set(liveCards.map((c) => c.id)).size).toBe(3);
    expect(liveCards.map((c) => ends(live.editor)[c.id])).toEqual(["completed", "failed", "completed"]);
    expect(existsSync(path.join(fx.workspace.dir, "a.txt"))).toBe(true);
    expect(existsSync(path.join(fx.workspace.dir, "b.txt"))).toBe(false);

    const loaded = await withEditor({}, async (ctx, editor) => {
      await ctx.request("session/load", { sessionId: live.value, cwd: fx.workspace.dir, mcpServers: [] });
      return editor.updates.length;
    });
    const replayed = loaded.editor.updates.slice(0, loaded.value).map((n) => n.update);
    expect(cards(loaded.editor, 0, loaded.value)).toEqual(liveCards);
    const status = Object.fromEntries(replayed.flatMap((u) => (u.sessionUpdate === "tool_call" ? [[u.toolCallId, u.status]] : [])));
    expect(liveCards.map((c) => status[c.id])).toEqual(["completed", "failed", "completed"]);
  });
});
