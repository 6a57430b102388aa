import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../events/agent-event.js";
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
});
