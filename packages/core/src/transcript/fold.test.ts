import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../events/agent-event.js";
import { changedItems } from "./changed-items.js";
import { endReplay, foldEvent, initialTranscript } from "./fold.js";
import type { Transcript, TranscriptItem } from "./types.js";

const fold = (events: readonly AgentEvent[], from: Transcript = initialTranscript()): Transcript => events.reduce(foldEvent, from);

const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const start = (id: string): AgentEvent => ({ type: "message_start", message_id: id });
const delta = (id: string, text: string): AgentEvent => ({ type: "text_delta", message_id: id, text });
const assistant = (id: string, content: Extract<AgentEvent, { type: "assistant" }>["message"]["content"]): AgentEvent => ({
  type: "assistant",
  session_id: "s",
  message: { id, role: "assistant", model: "m", content, stop_reason: "stop", usage },
});
const call = (id: string, name = "execute_command", input: Record<string, unknown> = { command: "make" }): AgentEvent => ({
  type: "tool_call",
  tool_use_id: id,
  name,
  kind: name === "execute_command" ? "command" : "edit",
  input,
  summary: `${name} ${JSON.stringify(input)}`,
  status: "pending",
  locations: [],
});
const ended = (id: string, name = "execute_command", content = "ok"): AgentEvent => ({ type: "tool_call_update", tool_use_id: id, name, status: "completed", content, is_error: false });
const result = (subtype: Extract<AgentEvent, { type: "result" }>["subtype"] = "success"): AgentEvent => ({
  type: "result",
  subtype,
  is_error: subtype !== "success" && subtype !== "needs_input",
  result: "Done.",
  num_turns: 1,
  duration_ms: 1,
  duration_api_ms: 1,
  total_cost_usd: 0.01,
  usage,
  session_id: "s",
  permission_denials: [],
});

/** The transcript as a person reads it: one line per item. */
function seen(t: Transcript): string[] {
  return t.items.map((item: TranscriptItem) => {
    switch (item.kind) {
      case "user":
        return `user: ${item.text}`;
      case "assistant":
        return `assistant${item.done ? "" : " (streaming)"}: ${item.text}`;
      case "tool":
        return `card ${item.card.tool_use_id} ${item.card.name} ${item.card.status}`;
      case "question":
        return `question: ${item.question}${item.answer === undefined ? "" : ` -> ${item.answer}`}`;
      case "awaiting":
        return `awaiting ${item.awaiting}: ${item.text}${item.answer ? ` -> ${JSON.stringify(item.answer)}` : ""}`;
      case "notice":
        return `notice ${item.event.type === "error" ? "error" : item.event.subtype}`;
      case "handoff":
        return `handoff ${item.from_task_id} -> ${item.task_id}`;
      case "checkpoint":
        return `checkpoint ${item.label} (${item.changed_files} files)`;
      case "restored":
        return `restored ${item.what} to ${item.message_index}`;
      case "result":
        return `result ${item.subtype}`;
    }
  });
}

describe("foldEvent", () => {
  it("a streamed reply becomes one message, keyed by the id its deltas and its complete event share", () => {
    const t = fold([
      { type: "user_message", text: "write it" },
      { type: "turn_start", turn: 1, reason: "task" },
      start("msg_a"),
      delta("msg_a", "I'll write "),
      delta("msg_a", "the file."),
      call("c1", "write_to_file", { path: "a.txt", content: "x" }),
      ended("c1", "write_to_file"),
      assistant("msg_a", [{ type: "text", text: "I'll write the file." }, { type: "tool_use", id: "c1", name: "write_to_file", input: {} }]),
      result(),
    ]);
    expect(seen(t)).toEqual(["user: write it", "assistant: I'll write the file.", "card c1 write_to_file completed", "result success"]);
    expect(t.status).toBe("done");
  });

  it("returns the same transcript for an event that changes nothing, and shares what an event did not change", () => {
    const before = fold([start("msg_a"), delta("msg_a", "hi"), call("c1")]);
    expect(foldEvent(before, { type: "tool_output", tool_use_id: "nobody", text: "x" })).toBe(before);
    const after = foldEvent(before, { type: "tool_output", tool_use_id: "c1", text: "compiling\n" });
    expect(after.items[0]).toBe(before.items[0]);
    expect(after.items[1]).not.toBe(before.items[1]);
    expect(after.checklist).toBe(before.checklist);
    expect(before.items[1]).toMatchObject({ card: { output: "" } });
  });

  it("a replayed record that ends mid-run shows as interrupted once the host says no process runs it", () => {
    const t = fold([{ type: "user_message", text: "go" }, { type: "turn_start", turn: 1, reason: "task" }, call("c1")]);
    expect(t.status).toBe("running");
    expect(endReplay(t, { interrupted: true }).status).toBe("interrupted");
    expect(endReplay(t, { interrupted: false })).toBe(t);
    expect(endReplay(fold([result()], t), { interrupted: true }).status).toBe("done");
  });

  it("a provider that reuses call_0 still gets one card per call, live and from the stored record", () => {
    // Cairn minted the ids (tool_…); the provider's call_0 never reaches the events.
    const denied: AgentEvent = { type: "tool_call_update", tool_use_id: "tool_b", name: "write_to_file", status: "denied", content: "The user denied this.", is_error: true, decision: { approved: false, by: "user", reason: "denied by the user" } };
    const turn = (n: number, id: string, body: AgentEvent[], text: string): AgentEvent[] => [
      { type: "turn_start", turn: n, reason: "task" },
      start(`msg_${n}`),
      delta(`msg_${n}`, text),
      ...body,
      assistant(`msg_${n}`, [{ type: "text", text }, { type: "tool_use", id, name: body[0]!.type === "tool_call" ? body[0].name : "", input: {} }]),
    ];
    const live: AgentEvent[] = [
      { type: "user_message", text: "edit, then build" },
      ...turn(1, "tool_a", [call("tool_a", "write_to_file", { path: "a.txt" }), ended("tool_a", "write_to_file")], "Writing a."),
      ...turn(2, "tool_b", [call("tool_b", "write_to_file", { path: "b.txt" }), { type: "tool_call_update", tool_use_id: "tool_b", name: "write_to_file", status: "awaiting_approval", approval: { category: "edit", summary: "write b.txt" } }, denied], "Writing b."),
      ...turn(3, "tool_c", [call("tool_c"), { type: "tool_output", tool_use_id: "tool_c", text: "built\n" }, ended("tool_c", "execute_command", "Exit code: 0")], "Building."),
      result(),
    ];
    const expected = [
      "user: edit, then build",
      "assistant: Writing a.",
      "card tool_a write_to_file completed",
      "assistant: Writing b.",
      "card tool_b write_to_file denied",
      "assistant: Building.",
      "card tool_c execute_command completed",
      "result success",
    ];
    expect(seen(fold(live))).toEqual(expected);
    // The record keeps no deltas nor message starts: a reopened task reads the same.
    const stored = live.filter((e) => e.type !== "text_delta" && e.type !== "message_start");
    expect(seen(fold(stored))).toEqual(expected);
  });

  it("a retried reply drops only what it streamed since its last start; earlier continuations stay", () => {
    const retry: AgentEvent = { type: "system", subtype: "api_retry", attempt: 1, max_retries: 3, retry_delay_ms: 10, error_status: null, error: "socket hang up" };
    const t = fold([
      start("msg_a"),
      delta("msg_a", "Part one, "),
      { type: "reasoning_delta", message_id: "msg_a", text: "first thoughts " },
      start("msg_a"), // continued after the output limit
      delta("msg_a", "garbled"),
      { type: "reasoning_delta", message_id: "msg_a", text: "lost thoughts" },
      { type: "stream_discarded", message_id: "msg_a", reason: "socket hang up" },
      retry,
      start("msg_a"),
      delta("msg_a", "part two."),
    ]);
    expect(seen(t)).toEqual(["assistant (streaming): Part one, part two.", "notice api_retry"]);
    expect(t.items[0]).toMatchObject({ reasoning: "first thoughts ", discarded: ["socket hang up"] });
    const done = foldEvent(t, assistant("msg_a", [{ type: "thinking", thinking: "first thoughts " }, { type: "text", text: "Part one, part two." }]));
    expect(done.items[0]).toMatchObject({ text: "Part one, part two.", reasoning: "first thoughts ", done: true });
    expect(done.items[1]).toBe(t.items[1]);
  });

  it("a message seen only complete sits before its cards, its XML call blocks cut from its prose", () => {
    const text = "I'll read it.\n<read_file>\n<path>a.txt</path>\n</read_file>\nThen list.\n<list_files>\n<path>.</path>\n</list_files>";
    const t = fold([
      { type: "turn_start", turn: 1, reason: "task" },
      call("x1", "read_file", { path: "a.txt" }),
      ended("x1", "read_file"),
      call("x2", "list_files", { path: "." }),
      ended("x2", "list_files"),
      assistant("msg_x", [{ type: "text", text }]),
    ]);
    expect(seen(t)).toEqual(["assistant: I'll read it.\n\nThen list.\n", "card x1 read_file completed", "card x2 list_files completed"]);
  });

  it("a message's text parts native calls came between are paragraphs of its prose; parts that continue one another join as they are", () => {
    const t = fold([
      { type: "turn_start", turn: 1, reason: "task" },
      call("c1", "read_file", { path: "a.txt" }),
      ended("c1", "read_file"),
      assistant("msg_n", [
        { type: "text", text: "Reading a." },
        { type: "tool_use", id: "c1", name: "read_file", input: { path: "a.txt" } },
        { type: "text", text: "Now b.\n" },
        { type: "tool_use", id: "c2", name: "read_file", input: { path: "b.txt" } },
        { type: "text", text: "\nDone" },
        { type: "text", text: " at last." },
      ]),
    ]);
    expect(seen(t)[0]).toBe("assistant: Reading a.\n\nNow b.\n\nDone at last.");
  });

  it("a hand-off carries the transcript on into the new task: its ids, checklist and spend are its own", () => {
    const t = fold([
      { type: "session_opened", task_id: "t1", title: "big job", cwd: "/w", model: "m", provider: "p", context_window: 1000, mode: "act" },
      { type: "user_message", text: "do it all" },
      { type: "turn_start", turn: 1, reason: "task" },
      call("tool_a", "new_task", { context: "carry on" }),
      { type: "task_progress", items: [{ text: "part one", done: true }] },
      { type: "usage", model: "m", usage, cost_usd: 0.01, total_cost_usd: 0.01 },
      { type: "awaiting", kind: "handoff", text: "carry on", tool_use_id: "tool_a" },
      { type: "answered", kind: "handoff", approved: true, tool_use_id: "tool_a" },
      ended("tool_a", "new_task", "Handed off."),
      { type: "handoff", from_task_id: "t1", task_id: "t2", context: "carry on" },
      { type: "session_opened", task_id: "t2", title: "carry on", cwd: "/w", model: "m", provider: "p", context_window: 1000, mode: "act" },
      { type: "turn_start", turn: 1, reason: "task" },
      call("tool_a"), // the new task's own call, under an id the last task used
    ]);
    expect(seen(t)).toEqual([
      "user: do it all",
      "card tool_a new_task completed",
      'awaiting handoff: carry on -> {"approved":true}',
      "handoff t1 -> t2",
      "card tool_a execute_command pending",
    ]);
    expect(new Set(t.items.map((item) => item.key)).size).toBe(t.items.length);
    expect(t).toMatchObject({ task_id: "t2", title: "carry on", status: "running", checklist: [], usage: { input_tokens: 0, cost_usd: null } });
  });

  it("a stored task reopened after its process died shows as interrupted until the person goes on", () => {
    const record: AgentEvent[] = [{ type: "user_message", text: "go" }, { type: "turn_start", turn: 1, reason: "task" }, call("c1")];
    const reopened = fold([...record, { type: "session_opened", task_id: "t1", title: "go", cwd: "/w", model: "m", provider: "p", context_window: 1000, mode: "act", resumed: { status: "running", interrupted: true } }]);
    expect(reopened.status).toBe("interrupted");
    expect(fold([{ type: "user_message", text: "carry on" }], reopened).status).toBe("running");
  });

  it("waits: an approval, a question, a plan; each answer puts the task back to work", () => {
    const approval: AgentEvent = { type: "tool_call_update", tool_use_id: "c1", name: "execute_command", status: "awaiting_approval", approval: { category: "all-commands", summary: "$ make" } };
    const asked = fold([call("c1"), approval]);
    expect(asked).toMatchObject({ status: "awaiting", awaiting: { kind: "approval", tool_use_id: "c1", text: "$ make" } });
    const approved = foldEvent(asked, { type: "tool_call_update", tool_use_id: "c1", name: "execute_command", status: "running", decision: { approved: true, by: "user", reason: "ok" } });
    expect(approved.status).toBe("running");
    expect(approved.awaiting).toBeUndefined();

    const question = fold([{ type: "question", tool_use_id: "q1", question: "Which file?", options: ["a", "b"] }], approved);
    expect(question).toMatchObject({ status: "awaiting", awaiting: { kind: "question", text: "Which file?", options: ["a", "b"] } });
    const answered = foldEvent(question, { type: "answered", kind: "question", text: "a", tool_use_id: "q1" });
    expect(seen(answered).at(-1)).toBe("question: Which file? -> a");
    expect(answered.status).toBe("running");

    const plan = fold([{ type: "awaiting", kind: "plan", text: "1. read\n2. write" }, { type: "answered", kind: "plan", approved: false, text: "smaller" }], answered);
    expect(seen(plan).at(-1)).toBe('awaiting plan: 1. read\n2. write -> {"approved":false,"text":"smaller"}');
    expect(plan.status).toBe("running");

    const needsInput = fold([{ type: "question", tool_use_id: "q2", question: "Go on?", options: [] }, result("needs_input")], plan);
    expect(needsInput).toMatchObject({ status: "needs_input", awaiting: { kind: "question", text: "Go on?" } });
  });

  it("the rest of the task's state: session, checklist, usage, checkpoints, restores, notices, results", () => {
    const t = fold([
      { type: "session_opened", task_id: "t1", title: "fix it", cwd: "/w", model: "m1", provider: "p", context_window: 1000, mode: "plan" },
      { type: "system", subtype: "mode", mode: "act", reason: "plan approved" },
      { type: "system", subtype: "fallback_model", from_model: "m1", to_model: "m2", error: "overloaded" },
      { type: "task_progress", items: [{ text: "read", done: true }, { text: "fix", done: false }] },
      { type: "usage", model: "m2", usage: { ...usage, cache_read_input_tokens: 90 }, cost_usd: 0.01, total_cost_usd: 0.01 },
      { type: "usage", model: "m2", usage, cost_usd: null, total_cost_usd: null },
      { type: "checkpoint", hash: "abc", message_index: 2, label: "turn 1", changed_files: 1 },
      { type: "system", subtype: "compact_boundary", compact_metadata: { trigger: "auto", pre_tokens: 900, post_tokens: 300, actions: ["compact"] } },
      { type: "restored", hash: "abc", message_index: 2, what: "both" },
      { type: "error", kind: "network", message: "socket hang up" },
      result("error_during_execution"),
    ]);
    expect(seen(t)).toEqual(["notice mode", "notice fallback_model", "checkpoint turn 1 (1 files)", "notice compact_boundary", "restored both to 2", "notice error", "result error_during_execution"]);
    expect(t).toMatchObject({ task_id: "t1", title: "fix it", mode: "act", model: "m2", context_window: 1000, status: "failed", checklist: [{ text: "read", done: true }, { text: "fix", done: false }] });
    expect(t.usage).toEqual({ input_tokens: 110, output_tokens: 10, context_tokens: 300, estimated: false, cost_usd: 0.01 });
    // Without a compaction after it, the fill is the last request and the reply to it.
    expect(fold([{ type: "usage", model: "m2", usage: { ...usage, cache_read_input_tokens: 90 }, cost_usd: 0.01, total_cost_usd: 0.01 }]).usage.context_tokens).toBe(usage.input_tokens + 90 + usage.output_tokens);
    expect(t.checkpoints).toEqual([{ hash: "abc", message_index: 2, label: "turn 1", changed_files: 1 }]);
    expect(fold([result("error_aborted")]).status).toBe("stopped");
  });

  it("a step's checkpoint follows its step's cards, even when it comes as the next turn has begun", () => {
    const checkpoint = (turn: number): AgentEvent => ({ type: "checkpoint", hash: `h${turn}`, message_index: 2 * turn, label: `turn ${turn}: replace_in_file`, changed_files: 1 });
    const t = fold([
      { type: "user_message", text: "edit twice" },
      { type: "turn_start", turn: 1, reason: "task" },
      call("tool_a", "replace_in_file", { path: "a.ts" }),
      ended("tool_a", "replace_in_file"),
      { type: "turn_start", turn: 2, reason: "next_turn" },
      start("msg_b"),
      delta("msg_b", "Now the second."),
      checkpoint(1), // made while turn 2 streams
      call("tool_b", "replace_in_file", { path: "a.ts" }),
      ended("tool_b", "replace_in_file"),
      checkpoint(2), // before turn 3 began: in place
      { type: "turn_start", turn: 3, reason: "next_turn" },
      { type: "assistant", session_id: "s", message: { id: "msg_c", model: "m", role: "assistant", content: [{ type: "text", text: "Done." }], stop_reason: "end_turn", usage } },
    ]);
    expect(seen(t)).toEqual([
      "user: edit twice",
      "card tool_a replace_in_file completed",
      "checkpoint turn 1: replace_in_file (1 files)",
      "assistant (streaming): Now the second.",
      "card tool_b replace_in_file completed",
      "checkpoint turn 2: replace_in_file (1 files)",
      "assistant: Done.",
    ]);
  });

  it("a call's arguments streaming, then its card", () => {
    const t = fold([
      { type: "tool_call_delta", id: "tool_e", name: "replace_in_file", param: null, text: '{"path":"a.ts"' },
      { type: "edit_preview", tool_use_id: "tool_e", path: "a.ts", blocks_applied: 1, changed_range: { start_line: 3, line_count: 2 }, preview: "x" },
      { type: "tool_call_delta", id: "tool_e", name: "replace_in_file", param: null, text: "}" },
    ]);
    expect(t.streaming).toMatchObject({ id: "tool_e", name: "replace_in_file", chars: 15, edit: { path: "a.ts", blocks_applied: 1 } });
    const carded = foldEvent(t, call("tool_e", "replace_in_file", { path: "a.ts" }));
    expect(carded.streaming).toBeUndefined();
    expect(seen(carded)).toEqual(["card tool_e replace_in_file pending"]);
  });

  it("a task stored before Cairn minted ids, with the provider's call_0 on every call, still shows each call", () => {
    const t = fold([
      call("call_0", "write_to_file", { path: "a.txt" }),
      ended("call_0", "write_to_file"),
      call("call_0"),
      { type: "tool_call_update", tool_use_id: "call_0", name: "execute_command", status: "failed", content: "Exit code: 1", is_error: true },
    ]);
    expect(seen(t)).toEqual(["card call_0 write_to_file completed", "card call_0 execute_command failed"]);
    expect(new Set(t.items.map((item) => item.key)).size).toBe(2);
  });

  it("changedItems names what one step added or changed, also a message placed before its cards", () => {
    const before = fold([{ type: "turn_start", turn: 1, reason: "task" }, call("c1"), ended("c1")]);
    const after = foldEvent(before, assistant("msg_a", [{ type: "text", text: "Built." }]));
    expect(changedItems(before, after).map(({ old, item }) => `${old ? "changed" : "new"} ${item.kind}`)).toEqual(["new assistant"]);
    const output = foldEvent(after, { type: "tool_output", tool_use_id: "c1", text: "x" });
    expect(changedItems(after, output).map(({ old, item }) => [old?.key, item.key])).toEqual([["t0:c1", "t0:c1"]]);
    expect(changedItems(output, foldEvent(output, { type: "task_progress", items: [] }))).toEqual([]);
  });
});
