import { expect, it } from "vitest";
import { applyEntry, type StreamEntry, type TaskState } from "./task-state.ts";

const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

function fold(events: StreamEntry["event"][]): TaskState {
  const tasks = new Map<string, TaskState>();
  for (const event of events) applyEntry(tasks, { task_id: "t", event });
  return tasks.get("t")!;
}

const replies = (task: TaskState) => task.items.flatMap((i) => (i.kind === "assistant" ? [i.text] : []));

it("a streamed reply and its complete message are one item, though their ids differ (attempt vs turn)", () => {
  const task = fold([
    { type: "text_delta", message_id: "msg_a_0_0", text: "I'll write " },
    { type: "text_delta", message_id: "msg_a_0_0", text: "the file." },
    { type: "assistant", session_id: "s", message: { id: "s_1", role: "assistant", model: "m", content: [{ type: "text", text: "I'll write the file." }], stop_reason: "tool_use", usage } },
    { type: "text_delta", message_id: "msg_b_0_0", text: "Done." },
    { type: "assistant", session_id: "s", message: { id: "s_2", role: "assistant", model: "m", content: [{ type: "text", text: "Done." }], stop_reason: "end_turn", usage } },
  ]);
  expect(replies(task)).toEqual(["I'll write the file.", "Done."]);
});

it("a reply continued after the output limit (two streamed pieces) settles into one item", () => {
  const task = fold([
    { type: "text_delta", message_id: "msg_a_0_0", text: "Part one, " },
    { type: "text_delta", message_id: "msg_a_0_1", text: "part two." },
    { type: "assistant", session_id: "s", message: { id: "s_1", role: "assistant", model: "m", content: [{ type: "text", text: "Part one, part two." }], stop_reason: "end_turn", usage } },
  ]);
  expect(replies(task)).toEqual(["Part one, part two."]);
});

it("a replayed task (complete messages only, no deltas) shows each reply once", () => {
  const task = fold([
    { type: "assistant", session_id: "s", message: { id: "s_1", role: "assistant", model: "m", content: [{ type: "text", text: "First." }], stop_reason: "tool_use", usage } },
    { type: "assistant", session_id: "s", message: { id: "s_2", role: "assistant", model: "m", content: [{ type: "text", text: "Second." }], stop_reason: "end_turn", usage } },
  ]);
  expect(replies(task)).toEqual(["First.", "Second."]);
});
