import type { AgentEvent, AssistantContentJson } from "@cairn/core";
import { describe, expect, it } from "vitest";
import { EventPresenter } from "./present-events.js";
import { replayOrder } from "./replay-order.js";
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

/** What a person sees when the events are shown, one line per history item. */
function shown(events: AgentEvent[]): string[] {
  const view = new SessionView({ frameMs: 0, columns: 100, rows: 40 });
  const presenter = new EventPresenter(view, { replay: true });
  for (const event of events) presenter.apply(event);
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
  it("shows each card after the prose that introduced it, and no tool-call XML (xml protocol)", () => {
    const lines = shown(replayOrder(xmlTask));
    expect(lines).toEqual(["text: First a.", "card: write a.txt", "text: Then b.", "card: write b.txt", "result: Wrote both"]);
    expect(lines.join("\n")).not.toContain("<");
  });

  it("as stored, the cards would come first and the XML would show: the order is what fixes it", () => {
    const lines = shown(xmlTask);
    expect(lines.indexOf("card: write a.txt")).toBeLessThan(lines.findIndex((l) => l.startsWith("text: First a.")));
  });

  it("interleaves native tool_use parts by their ids", () => {
    const events: AgentEvent[] = [
      { type: "turn_start", turn: 1, reason: "start" } as AgentEvent,
      ...call("t1", "read_file", { path: "a.txt" }, "read a.txt"),
      { type: "system", subtype: "notice", level: "info", message: "a notice after the read" } as AgentEvent,
      ...call("t2", "read_file", { path: "b.txt" }, "read b.txt"),
      assistant(1, [
        { type: "thinking", thinking: "hmm" },
        { type: "text", text: "Reading a." },
        { type: "tool_use", id: "t1", name: "read_file", input: { path: "a.txt" } },
        { type: "text", text: "Now b." },
        { type: "tool_use", id: "t2", name: "read_file", input: { path: "b.txt" } },
      ]),
    ];
    expect(shown(replayOrder(events))).toEqual(["text: Reading a.", "card: read a.txt", "notice", "text: Now b.", "card: read b.txt"]);
  });

  it("keeps a turn that never got its message (stopped mid-turn) as it was", () => {
    const events: AgentEvent[] = [{ type: "turn_start", turn: 1, reason: "start" } as AgentEvent, ...call("t1", "read_file", { path: "a.txt" }, "read a.txt")];
    expect(replayOrder(events)).toEqual(events);
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
