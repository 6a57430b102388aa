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

it("the problems an edit introduced fold onto its card, bounded and counted; other cards get none", () => {
  const call = (id: string) => ({ type: "tool_call" as const, tool_use_id: id, name: "write_to_file", kind: "edit" as const, input: { path: `${id}.ts` }, summary: `write ${id}.ts`, status: "pending" as const, locations: [] });
  const problems = (n: number) => Array.from({ length: n }, (_, i) => ({ line: i + 1, column: 7, severity: "error" as const, message: `Problem ${i + 1}\nmore detail`, code: "TS2345" }));
  const task = fold([
    call("e1"),
    call("e2"),
    { type: "diagnostics", tool_use_id: "e1", path: "src/a.ts", server: "typescript", problems: problems(8) },
    { type: "diagnostics", tool_use_id: "e1", path: "src/c.ts", server: "typescript", problems: problems(5) },
    { type: "diagnostics", tool_use_id: "unknown", path: "x.ts", server: "typescript", problems: problems(1) },
  ]);
  const [first, second] = task.items.filter((i) => i.kind === "tool");
  expect(first).toMatchObject({ tool_use_id: "e1", problems: { count: 13 } });
  const shown = first!.kind === "tool" ? first!.problems!.shown : [];
  expect(shown).toHaveLength(10);
  expect(shown[0]).toEqual({ path: "src/a.ts", line: 1, column: 7, code: "TS2345", message: "Problem 1" });
  expect(shown[9]).toMatchObject({ path: "src/c.ts", line: 2 });
  expect(second).toEqual({ kind: "tool", key: "t-e2", tool_use_id: "e2" });
});
