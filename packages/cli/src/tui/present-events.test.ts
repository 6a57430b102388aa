import type { AgentEvent, AssistantContentJson } from "@cairn/core";
import { describe, expect, it } from "vitest";
import { EventPresenter } from "./present-events.js";
import { SessionView } from "./session-view.js";
import type { HistoryItem } from "./view-types.js";

const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const assistant = (n: number, content: AssistantContentJson[]): AgentEvent => ({
  type: "assistant",
  session_id: "s",
  message: { id: `s_${n}`, role: "assistant", model: "m", content, stop_reason: "tool_calls", usage },
});
const call = (id: string, name: string, input: Record<string, unknown>, summary: string): AgentEvent[] => [
  { type: "tool_call", tool_use_id: id, name, kind: "unknown", input, summary, status: "pending", locations: [] },
  { type: "tool_call_update", tool_use_id: id, name, status: "running", decision: { approved: true, by: "auto", reason: "auto-approved" } },
  { type: "tool_call_update", tool_use_id: id, name, content: "ok", is_error: false, status: "completed" },
];
const result: AgentEvent = { type: "result", subtype: "success", is_error: false, result: "Wrote both", num_turns: 2, duration_ms: 1, duration_api_ms: 1, total_cost_usd: null, usage } as AgentEvent;

/** What a person sees when the events are shown (live, or replayed as a reopened task's record), one line per history item. */
function shown(events: AgentEvent[], how: "live" | "replay" = "live"): string[] {
  const view = new SessionView({ frameMs: 0, columns: 100, rows: 40 });
  const presenter = new EventPresenter(view);
  if (how === "replay") presenter.replay(events, false);
  else for (const event of events) presenter.apply(event);
  presenter.flushReply();
  view.flush();
  return view.getSnapshot().history.map((item: HistoryItem) => {
    if (item.kind === "assistant") return `text: ${item.text}`;
    if (item.kind === "tool") return `card: ${item.card.summary}`;
    if (item.kind === "result") return `result: ${item.text}`;
    return item.kind;
  });
}

// A task under the xml protocol, as its journal stores it: no deltas, each message after its calls.
const xmlTask: AgentEvent[] = [
  { type: "turn_start", turn: 1, reason: "start" } as AgentEvent,
  ...call("msg_a_0", "write_to_file", { path: "a.txt", content: "A" }, "write a.txt"),
  ...call("msg_a_1", "write_to_file", { path: "b.txt", content: "B" }, "write b.txt"),
  assistant(1, [
    {
      type: "text",
      text: "First a.\n<write_to_file>\n<path>a.txt</path>\n<content>\nA\n</content>\n</write_to_file>\nThen b.\n<write_to_file>\n<path>b.txt</path>\n<content>\nB\n</content>\n</write_to_file>",
    },
  ]),
  { type: "turn_start", turn: 2, reason: "next_turn" } as AgentEvent,
  ...call("msg_b_0", "attempt_completion", { result: "Wrote both" }, "complete"),
  assistant(2, [{ type: "text", text: "<attempt_completion>\n<result>Wrote both</result>\n</attempt_completion>" }]),
  result,
];

describe("replaying a stored task", () => {
  it("shows each message before the cards it introduced, and no tool-call XML (xml protocol)", () => {
    const lines = shown(xmlTask, "replay");
    expect(lines).toEqual(["text: First a.\n\nThen b.", "card: write a.txt", "card: write b.txt", "result: Wrote both"]);
    expect(lines.join("\n")).not.toContain("<");
  });

  it("native calls: the message's prose and thinking first, then its cards, a notice where it came", () => {
    const events: AgentEvent[] = [
      { type: "turn_start", turn: 1, reason: "start" } as AgentEvent,
      ...call("t1", "read_file", { path: "a.txt" }, "read a.txt"),
      { type: "system", subtype: "notice", level: "info", message: "a notice after the read" } as AgentEvent,
      ...call("t2", "read_file", { path: "b.txt" }, "read b.txt"),
      assistant(1, [
        { type: "thinking", thinking: "hmm" },
        { type: "text", text: "Reading a and b." },
        { type: "tool_use", id: "t1", name: "read_file", input: { path: "a.txt" } },
        { type: "tool_use", id: "t2", name: "read_file", input: { path: "b.txt" } },
      ]),
    ];
    expect(shown(events, "replay")).toEqual(["reasoning", "text: Reading a and b.", "card: read a.txt", "notice", "card: read b.txt"]);
  });

  it("a turn that never got its message (stopped mid-turn) shows its cards", () => {
    const events: AgentEvent[] = [{ type: "turn_start", turn: 1, reason: "start" } as AgentEvent, ...call("t1", "read_file", { path: "a.txt" }, "read a.txt")];
    expect(shown(events, "replay")).toEqual(["card: read a.txt"]);
  });

  it("the person's messages and answers, a hand-off and a restore read as they did live", () => {
    const events: AgentEvent[] = [
      { type: "user_message", text: "Tidy up", images: 1 },
      { type: "question", tool_use_id: "q1", question: "Which folder?", options: [] },
      { type: "answered", kind: "question", text: "src", tool_use_id: "q1" },
      { type: "restored", hash: "0123456789abcdef", message_index: 2, what: "both" },
      { type: "restored", hash: "0123456789abcdef", message_index: 2, what: "files", checkpoint: 3 },
      { type: "handoff", from_task_id: "a", task_id: "b", context: "Goal: go on" },
    ];
    const view = new SessionView({ frameMs: 0, columns: 100, rows: 40 });
    new EventPresenter(view).replay(events, false);
    view.flush();
    expect(view.getSnapshot().history).toMatchObject([
      { kind: "user", text: "Tidy up\n[image: picture]" },
      { kind: "question", question: "Which folder?" },
      { kind: "user", text: "src" },
      // A task recorded before restores named their checkpoint's number: its hash.
      { kind: "notice", text: "Files and conversation restored to checkpoint 0123456789 (2 messages kept)." },
      { kind: "notice", text: "Files restored to checkpoint 3." },
      { kind: "info", title: "A fresh task carries this work on, starting from:", lines: ["Goal: go on"] },
    ]);
  });

  it("fills the status line's context alike live and when the task is reopened", () => {
    const events: AgentEvent[] = [
      { type: "session_opened", task_id: "t1", title: "t", cwd: "/w", model: "m", provider: "p", context_window: 1000, mode: "act" },
      { type: "usage", model: "m", usage: { input_tokens: 200, output_tokens: 50, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 }, cost_usd: null, total_cost_usd: null },
    ];
    const fill = (how: "live" | "replay") => {
      const view = new SessionView({ frameMs: 0, columns: 100, rows: 40 });
      const presenter = new EventPresenter(view);
      if (how === "replay") presenter.replay(events, false);
      else for (const event of events) presenter.apply(event);
      return view.status.contextTokens;
    };
    expect(fill("live")).toBe(350);
    expect(fill("replay")).toBe(350);
  });

  it("shows the last items of a long record, saying the rest is not shown", () => {
    const events = Array.from({ length: 30 }, (_, i) => call(`t${i}`, "read_file", { path: `${i}.txt` }, `read ${i}.txt`)).flat();
    const view = new SessionView({ frameMs: 0, columns: 100, rows: 40 });
    new EventPresenter(view).replay([...events, ...events.map((e) => ("tool_use_id" in e ? { ...e, tool_use_id: `u${e.tool_use_id}` } : e))], false);
    view.flush();
    const history = view.getSnapshot().history;
    expect(history[0]).toMatchObject({ kind: "notice", text: expect.stringContaining("earlier events of this task are not shown") });
    expect(history.at(-1)).toMatchObject({ kind: "tool", card: { summary: "read 29.txt" } });
  });
});

describe("a live reply that streamed no prose", () => {
  it("shows none of its XML tool block", () => {
    const lines = shown([
      { type: "turn_start", turn: 1, reason: "start" } as AgentEvent,
      ...call("msg_b_0", "attempt_completion", { result: "Done" }, "complete"),
      assistant(1, [{ type: "text", text: "All set.\n<attempt_completion>\n<result>Done</result>\n</attempt_completion>" }]),
    ]);
    expect(lines).toEqual(["text: All set."]);
  });

  it("cuts out the blocks of MCP tools, known from the calls the turn made", () => {
    const lines = shown([
      { type: "turn_start", turn: 1, reason: "start" } as AgentEvent,
      ...call("x_0", "use_mcp_tool", { server_name: "s", tool_name: "t", arguments: "{}" }, "mcp s/t"),
      assistant(1, [{ type: "text", text: "Asking the server.\n<use_mcp_tool>\n<server_name>s</server_name>\n<tool_name>t</tool_name>\n<arguments>{}</arguments>\n</use_mcp_tool>" }]),
    ]);
    expect(lines).toEqual(["card: mcp s/t", "text: Asking the server."]);
  });
});

describe("checkpoints in the conversation", () => {
  const checkpoint = (hash: string, label: string, changed_files: number): AgentEvent => ({ type: "checkpoint", hash, message_index: 2, label, changed_files });
  const task: AgentEvent[] = [
    { type: "turn_start", turn: 1, reason: "start" } as AgentEvent,
    checkpoint("aaaaaaaaaaaa", "task start", 3),
    ...call("c1", "write_to_file", { path: "a.txt", content: "A" }, "write a.txt"),
    checkpoint("bbbbbbbbbbbb", "turn 1: write_to_file", 1),
    ...call("c2", "write_to_file", { path: "b.txt", content: "B" }, "write b.txt"),
    checkpoint("cccccccccccc", "turn 2: write_to_file", 2),
    checkpoint("cccccccccccc", "task completed", 0),
  ];
  /** The notes a person sees, after the cards they follow. */
  function notes(how: "live" | "replay", listed: number): string[] {
    const view = new SessionView({ frameMs: 0, columns: 100, rows: 40 });
    view.status.checkpoints = how === "live" ? 0 : listed;
    const presenter = new EventPresenter(view);
    if (how === "replay") presenter.replay(task, false);
    else for (const event of task) presenter.apply(event);
    view.flush();
    return view.getSnapshot().history.flatMap((item: HistoryItem) => (item.kind === "tool" ? [`card: ${item.card.summary}`] : item.kind === "notice" ? [item.text] : []));
  }

  it("each step that changed files is followed by its number in the task's list and the command back to it; the start and an empty end are not", () => {
    const expected = ["card: write a.txt", "checkpoint 2 · 1 file · /checkpoints restore 2", "card: write b.txt", "checkpoint 3 · 2 files · /checkpoints restore 3"];
    expect(notes("live", 0)).toEqual(expected);
    expect(notes("replay", 4)).toEqual(expected);
  });

  it("a reopened task whose list a restore added to (no event says where) names each by its hash", () => {
    expect(notes("replay", 6)).toEqual(["card: write a.txt", "checkpoint bbbbbbbbbb · 1 file · /checkpoints restore bbbbbbbbbb", "card: write b.txt", "checkpoint cccccccccc · 2 files · /checkpoints restore cccccccccc"]);
  });
});
