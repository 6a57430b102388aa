import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent, PlanEstimate } from "../events/index.js";
import { listTasks } from "../storage/history.js";
import { TaskStore } from "../storage/task-store.js";
import { SessionRunner, type RunnerOptions } from "./session-runner.js";

let root: string;
let home: string;
let cwd: string;
let server: ScriptedModelServer | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-runner-")));
  home = path.join(root, "home");
  cwd = path.join(root, "ws");
  mkdirSync(home);
  mkdirSync(cwd);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = (result: string) => call("attempt_completion", { result });
const env = () => ({ PATH: process.env.PATH, HOME: root, ANTHROPIC_API_KEY: "k", CAIRN_PROVIDER: "anthropic", CAIRN_BASE_URL: server!.url });
const common = (more: Partial<RunnerOptions> = {}): RunnerOptions => ({ home, env: env(), overrides: { autoApprove: ["read", "edit"] }, ...more });
const read = (file: string) => readFileSync(path.join(cwd, file), "utf8");

/** What the model was sent last: the last text of the last request (a message after a stop is a part of its own). */
function lastSent(): string {
  const messages = server!.requests.at(-1)!.body.messages as Array<{ content: string | Array<{ type: string; text?: string }> }>;
  const content = messages.at(-1)!.content;
  return typeof content === "string" ? content : (content.filter((p) => p.type === "text").at(-1)?.text ?? "");
}

function record(runner: SessionRunner, o?: { replay?: boolean }): AgentEvent[] {
  const events: AgentEvent[] = [];
  runner.subscribe((e) => events.push(e), o);
  return events;
}

const kinds = (events: AgentEvent[]) => events.map((e) => (e.type === "system" ? `system/${e.subtype}` : e.type));

describe("SessionRunner", () => {
  it("a fresh runner opens its task on the first message, runs it to its result and ends it on close", async () => {
    server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "a.txt", content: "A\n" }), done("Wrote a.txt")] });
    const ended: string[] = [];
    const runner = SessionRunner.fresh({ cwd, ...common({ hooks: { sessionEnd: (reason) => void ended.push(reason) } }) });
    const events = record(runner);
    expect(runner.id).toBeUndefined();
    const result = await runner.send("Write a.txt");
    expect(ended).toEqual([]);
    await runner.close("prompt_input_exit");

    expect(ended).toEqual(["prompt_input_exit"]);
    expect(result).toMatchObject({ subtype: "success", result: "Wrote a.txt" });
    expect(read("a.txt")).toBe("A\n");
    expect(kinds(events).slice(0, 3)).toEqual(["session_opened", "user_message", "system/init"]);
    expect(events[0]).toMatchObject({ type: "session_opened", task_id: runner.id, title: "Write a.txt", cwd, mode: "act" });
    // The model's window, for hosts that show how full it is.
    expect(events[0]).toMatchObject({ context_window: runner.session!.settings.model.info.contextWindow });
    expect(runner.session!.settings.model.info.contextWindow).toBeGreaterThan(0);
    expect(events[1]).toEqual({ type: "user_message", text: "Write a.txt" });
    expect(kinds(events).at(-1)).toBe("result");
    expect(runner.session!.store.metadata().status).toBe("completed");
    // Subscribers got what the task's record keeps.
    expect(kinds(runner.session!.store.loadEvents()).slice(0, 2)).toEqual(["session_opened", "user_message"]);
  });

  it("a stored task resumed by another runner: its record replayed first, the answer worded for its question, the store claimed", async () => {
    server = await startScriptedModelServer({ turns: [call("ask_followup_question", { question: "Which colour?", options: ["red", "blue"] }), done("Blue it is")] });
    const first = SessionRunner.fresh({ cwd, ...common() });
    const asked = await first.send("Paint it");
    await first.close();
    expect(asked.subtype).toBe("needs_input");
    expect(TaskStore.open(home, first.id!).metadata().status).toBe("needs_input");

    const second = await SessionRunner.resume({ id: first.id!, ...common() });
    const replayed = record(second, { replay: true });
    // The record as stored, which now ends with this session's opening.
    expect(kinds(replayed)).toEqual(kinds(TaskStore.open(home, first.id!).loadEvents()));
    expect(replayed.at(-1)).toMatchObject({ type: "session_opened", task_id: first.id, resumed: { status: "needs_input", interrupted: false } });
    // Opened, not carried on: the store is not claimed yet.
    expect(TaskStore.open(home, first.id!).metadata().status).toBe("needs_input");

    const result = await second.send("blue");
    await second.close();
    expect(result).toMatchObject({ subtype: "success", result: "Blue it is" });
    expect(lastSent()).toContain("<answer>\nblue\n</answer>");
    expect(replayed.filter((e) => e.type === "user_message")).toEqual([
      { type: "user_message", text: "Paint it" },
      { type: "user_message", text: "blue" },
    ]);
  });

  it("after a stop, the next message tells the model the task was stopped, and the person's words stay theirs", async () => {
    server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "a.txt", content: "A\n" }), done("Carried on")] });
    // The person stops the run while it asks them about the write.
    const host = { approve: async () => (runner.stop(), { approved: false }) };
    const runner: SessionRunner = SessionRunner.fresh({ cwd, ...common({ overrides: {}, host }) });
    const events = record(runner);
    const stopped = await runner.send("Start");
    expect(stopped.subtype).toBe("error_aborted");
    expect(runner.running).toBe(false);

    const result = await runner.send("Go on please");
    await runner.close();
    expect(result.result).toBe("Carried on");
    expect(lastSent()).toMatch(/^\[The task was stopped by the user and has now been resumed\.\]\n\nGo on please/);
    expect(events.filter((e) => e.type === "user_message").map((e) => (e as { text: string }).text)).toEqual(["Start", "Go on please"]);
  });

  it("new_task hands over to fresh tasks in a chain: old session ended, each new one linked and opened in the old one's mode", async () => {
    server = await startScriptedModelServer({
      turns: [call("new_task", { context: "Part two: write b.txt" }), call("new_task", { context: "Part three: write c.txt" }), call("write_to_file", { path: "c.txt", content: "C\n" }), done("All parts done")],
    });
    const ended: string[] = [];
    const runner = SessionRunner.fresh({ cwd, ...common({ overrides: { autoApprove: ["read", "edit"], mode: "act" }, hooks: { sessionEnd: (reason) => void ended.push(reason) } }) });
    const events = record(runner);
    const result = await runner.send("Part one");
    const ids = events.filter((e) => e.type === "session_opened").map((e) => (e as { task_id: string }).task_id);
    await runner.close();

    expect(result.result).toBe("All parts done");
    expect(read("c.txt")).toBe("C\n");
    expect(ids).toHaveLength(3);
    expect(runner.id).toBe(ids[2]);
    expect(ended).toEqual(["other", "other", "other"]);
    const handoffs = events.filter((e) => e.type === "handoff");
    expect(handoffs).toEqual([
      { type: "handoff", from_task_id: ids[0], task_id: ids[1], context: "Part two: write b.txt" },
      { type: "handoff", from_task_id: ids[1], task_id: ids[2], context: "Part three: write c.txt" },
    ]);
    // Each hand-off comes after the old task's result and before the new task's first event.
    const order = kinds(events).filter((k) => k === "result" || k === "handoff" || k === "session_opened");
    expect(order).toEqual(["session_opened", "result", "handoff", "session_opened", "result", "handoff", "session_opened", "result"]);
    const [a, b, c] = ids.map((id) => TaskStore.open(home, id!).metadata());
    expect(a!.children).toEqual([{ id: ids[1], relation: "handoff" }]);
    expect(b).toMatchObject({ parent: { id: ids[0], relation: "handoff" }, children: [{ id: ids[2], relation: "handoff" }], title: "Part two: write b.txt" });
    expect(c!.parent).toEqual({ id: ids[1], relation: "handoff" });
    // The old task's record says where the work went, the new one's where it came from.
    expect(TaskStore.open(home, ids[0]!).loadEvents().filter((e) => e.type === "handoff")).toEqual([handoffs[0]]);
    expect(kinds(TaskStore.open(home, ids[1]!).loadEvents()).slice(0, 2)).toEqual(["handoff", "session_opened"]);
  });

  it("a hand-off keeps the old task's mode, switched during the session", async () => {
    server = await startScriptedModelServer({ turns: [done("Looked"), call("new_task", { context: "Go on in a fresh task" }), call("plan_mode_respond", { response: "The plan" })] });
    const runner = SessionRunner.fresh({ cwd, ...common() });
    await runner.send("Look around");
    runner.setMode("plan");
    const result = await runner.send("Hand it over");
    await runner.close();
    expect(runner.mode).toBe("plan");
    expect(runner.session!.store.metadata()).toMatchObject({ mode: "plan", parent: { relation: "handoff" } });
    expect(result.subtype).toBe("needs_input");
  });

  it("a mode switched while running applies after the run, with a system/mode event", async () => {
    server = await startScriptedModelServer({ turns: [done("Done")] });
    const runner = SessionRunner.fresh({ cwd, ...common() });
    const events = record(runner);
    runner.subscribe((e) => {
      if (e.type === "turn_start") runner.setMode("plan");
    });
    await runner.send("Do it");
    expect(runner.mode).toBe("plan");
    expect(runner.session!.store.metadata().mode).toBe("plan");
    const init = events.find((e) => e.type === "system" && e.subtype === "init");
    expect(init).toMatchObject({ mode: "act" });
    expect(kinds(events).slice(-2)).toEqual(["result", "system/mode"]);
    expect(events.at(-1)).toMatchObject({ mode: "plan" });
    await runner.close();
  });

  describe("restore", () => {
    async function twoEdits() {
      server = await startScriptedModelServer({
        turns: [call("write_to_file", { path: "a.txt", content: "one\n" }), call("write_to_file", { path: "a.txt", content: "two\n" }), done("Wrote a.txt twice"), done("Again")],
      });
      const runner = SessionRunner.fresh({ cwd, ...common() });
      const events = record(runner);
      await runner.send("Write a.txt");
      const records = runner.session!.store.metadata().checkpoints;
      const first = records.findIndex((r) => r.label.startsWith("turn 1")) + 1;
      expect(first).toBeGreaterThan(0);
      return { runner, events, first, target: records[first - 1]! };
    }

    it("files: the checkpoint's files come back, the conversation stays", async () => {
      const { runner, events, first, target } = await twoEdits();
      const length = runner.session!.task.snapshot().messages.length;
      const done = await runner.restore(first, "files");
      expect(read("a.txt")).toBe("one\n");
      expect(done).toMatchObject({ checkpoint: first, hash: target.hash, files: { restored: 1 } });
      expect(done.messagesKept).toBeUndefined();
      expect(runner.session!.task.snapshot().messages).toHaveLength(length);
      expect(events.at(-1)).toEqual({ type: "restored", hash: target.hash, message_index: length, what: "files", checkpoint: first });
      // The two checkpoints the restore added to the task's list came before it, as events too.
      expect(events.slice(-3, -1).map((e) => e.type === "checkpoint" && e.label)).toEqual(["before restore", `restored to checkpoint ${first}`]);
      await runner.send("Check");
      expect(lastSent()).not.toContain("stopped by the user");
      await runner.close();
    });

    it("conversation: cut back to the checkpoint's message, files as they are, the next message says the task was stopped", async () => {
      const { runner, events, first, target } = await twoEdits();
      await runner.restore(target.hash.slice(0, 8), "conversation");
      expect(read("a.txt")).toBe("two\n");
      expect(runner.session!.task.snapshot().messages).toHaveLength(target.messageIndex);
      expect(runner.session!.store.loadConversation().messages).toHaveLength(target.messageIndex);
      expect(events.at(-1)).toEqual({ type: "restored", hash: target.hash, message_index: target.messageIndex, what: "conversation", checkpoint: first });
      await runner.send("Try another way");
      expect(lastSent()).toContain("[The task was stopped by the user and has now been resumed.]\n\nTry another way");
      await runner.close();
    });

    it("both: files and conversation, recorded in the task's events", async () => {
      const { runner, first, target } = await twoEdits();
      await runner.restore(first, "both");
      await runner.close();
      expect(read("a.txt")).toBe("one\n");
      expect(runner.session!.store.loadConversation().messages).toHaveLength(target.messageIndex);
      expect(runner.session!.store.loadEvents().at(-1)).toEqual({ type: "restored", hash: target.hash, message_index: target.messageIndex, what: "both", checkpoint: first });
    });

    it("refuses an unknown checkpoint in one line", async () => {
      const { runner } = await twoEdits();
      await expect(runner.restore(99, "files")).rejects.toThrow(/^No checkpoint "99" in task .*: it has \d+, numbered from 1\.$/);
      await runner.close();
    });
  });

  it("create() stores a task before any message; another runner resumes it and its first message is a run", async () => {
    server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "a.txt", content: "A\n" }), done("Wrote a.txt")] });
    const created = await SessionRunner.create({ cwd, ...common() });
    const id = created.id!;
    await created.close();
    expect(listTasks(home).entries.map((e) => e.id)).not.toContain(id);

    const resumed = await SessionRunner.resume({ id, ...common() });
    const events = record(resumed, { replay: true });
    const result = await resumed.send("Write a.txt\nwith A");
    await resumed.close();
    expect(result.result).toBe("Wrote a.txt");
    expect(read("a.txt")).toBe("A\n");
    // A run, not a resume: the model gets the person's words, no resume wording.
    const firstRequest = server.requests[0]!.body.messages as Array<{ content: Array<{ text?: string }> }>;
    expect(firstRequest).toHaveLength(1);
    expect(firstRequest[0]!.content[0]!.text).toMatch(/^Write a\.txt\nwith A/);
    expect(kinds(events).filter((k) => k === "session_opened")).toHaveLength(2);
    expect(listTasks(home).entries.find((e) => e.id === id)).toMatchObject({ title: "Write a.txt", status: "completed" });
  });

  it("awaiting and answered frame the host's callbacks", async () => {
    server = await startScriptedModelServer({ turns: [call("plan_mode_respond", { response: "Step 1" }), done("Did step 1")] });
    writeFileSync(path.join(cwd, "x.txt"), "x\n");
    // The host is shown the plan's estimate, and approves with the budget it suggests.
    const shown: Array<PlanEstimate | undefined> = [];
    const reviewPlan = async (_plan: string, _signal: AbortSignal, estimate?: PlanEstimate) => {
      shown.push(estimate);
      return { approved: true, budgetUsd: estimate!.budget_usd! };
    };
    const runner = SessionRunner.fresh({ cwd, ...common({ overrides: { autoApprove: ["read", "edit"], mode: "plan" }, host: { reviewPlan } }) });
    const events = record(runner);
    const result = await runner.send("Plan it");
    await runner.close();
    expect(result.result).toBe("Did step 1");
    const estimate = shown[0]!;
    expect(estimate).toMatchObject({ steps: 1, turns: { low: 2, high: 4 }, budget_usd: expect.any(Number) });
    const framed = events.filter((e) => e.type === "awaiting" || e.type === "answered");
    expect(framed).toEqual([
      { type: "awaiting", kind: "plan", text: "Step 1", estimate },
      { type: "answered", kind: "plan", approved: true, budget_usd: estimate.budget_usd },
    ]);
    // The Act phase's requests are counted against the budget agreed with the plan.
    expect(events.filter((e) => e.type === "usage").at(-1)).toMatchObject({ budget_usd: estimate.budget_usd });
    expect(kinds(runner.session!.store.loadEvents())).toEqual(expect.arrayContaining(["awaiting", "answered"]));
  });
  it("a question answered by the host and a hand-off it agrees to are framed with their calls' ids", async () => {
    server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "text", text: "Let me ask." }, { type: "tool_use", name: "ask_followup_question", input: { question: "Which colour?", options: ["red", "blue"] } }] },
        call("new_task", { context: "Paint it blue" }),
        done("Painted"),
      ],
    });
    const host = { ask: async () => "blue", confirmNewTask: async (context: string) => ({ approved: true as const, context: `${context}, twice` }) };
    const runner = SessionRunner.fresh({ cwd, ...common({ host }) });
    const events = record(runner);
    const result = await runner.send("Paint it");
    await runner.close();
    expect(result.result).toBe("Painted");
    const question = events.find((e) => e.type === "question")!;
    const newTask = events.find((e) => e.type === "tool_call" && e.name === "new_task") as { tool_use_id: string };
    expect(events.filter((e) => e.type === "awaiting" || e.type === "answered" || e.type === "handoff")).toEqual([
      { type: "answered", kind: "question", text: "blue", tool_use_id: (question as { tool_use_id: string }).tool_use_id },
      { type: "awaiting", kind: "handoff", text: "Paint it blue", tool_use_id: newTask.tool_use_id },
      { type: "answered", kind: "handoff", approved: true, text: "Paint it blue, twice", tool_use_id: newTask.tool_use_id },
      { type: "handoff", from_task_id: expect.any(String), task_id: runner.id, context: "Paint it blue, twice" },
    ]);
    // A late subscriber gets what happened, without the streamed pieces of complete replies.
    const replayed = record(runner, { replay: true });
    expect(kinds(events)).toContain("text_delta");
    expect(kinds(replayed).filter((k) => k === "text_delta" || k === "message_start")).toEqual([]);
    expect(kinds(replayed)).toEqual(kinds(events).filter((k) => k !== "text_delta" && k !== "message_start" && k !== "tool_output"));
  });
});
