import { expect, it } from "vitest";
import { applyEntry, problemsOf, storedTask, type AgentEvent, type StreamEntry, type TaskState } from "./task-state.ts";

const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const opened = (task_id: string): AgentEvent => ({ type: "session_opened", task_id, title: task_id, cwd: "/w", model: "m", provider: "p", context_window: 1000, mode: "act" });
const call = (id: string): AgentEvent => ({ type: "tool_call", tool_use_id: id, name: "write_to_file", kind: "edit", input: { path: `${id}.ts` }, summary: `write ${id}.ts`, status: "pending", locations: [] });
const result: AgentEvent = { type: "result", subtype: "success", is_error: false, result: "ok", num_turns: 1, duration_ms: 1, duration_api_ms: 1, total_cost_usd: null, usage, session_id: "a", permission_denials: [] };

function fold(entries: StreamEntry[]): Map<string, TaskState> {
  const tasks = new Map<string, TaskState>();
  for (const entry of entries) applyEntry(tasks, entry);
  return tasks;
}

it("a task that handed its work over is not running; the new task, on its own id, is", () => {
  const handoff: AgentEvent = { type: "handoff", from_task_id: "a", task_id: "b", context: "Goal: go on." };
  const tasks = fold([
    { task_id: "a", event: opened("a") },
    { task_id: "a", event: { type: "user_message", text: "hand over" } },
    { task_id: "a", event: result },
    { task_id: "a", event: handoff },
    { task_id: "b", event: handoff },
    { task_id: "b", event: opened("b") },
    { task_id: "b", event: { type: "system", subtype: "notice", level: "info", message: "started" } },
  ]);
  expect(tasks.get("a")).toMatchObject({ id: "a", running: false, context_window: 1000 });
  expect(tasks.get("b")).toMatchObject({ id: "b", running: true, title: "b" });
});

it("a stored record that ends mid-run shows as interrupted when no process runs it, and as it was when one does", () => {
  const events = [opened("a"), { type: "user_message", text: "go" } as AgentEvent, call("c1")];
  expect(storedTask("a", events, true)).toMatchObject({ status: "interrupted", running: false });
  expect(storedTask("a", events, false)).toMatchObject({ status: "running", running: true });
});

it("the problems an edit introduced show under its card, bounded and counted", () => {
  const problems = (n: number) => Array.from({ length: n }, (_, i) => ({ line: i + 1, column: 7, severity: "error" as const, message: `Problem ${i + 1}\nmore detail`, code: "TS2345" }));
  const tasks = fold([
    { task_id: "t", event: call("e1") },
    { task_id: "t", event: call("e2") },
    { task_id: "t", event: { type: "diagnostics", tool_use_id: "e1", path: "src/a.ts", server: "typescript", problems: problems(8) } },
    { task_id: "t", event: { type: "diagnostics", tool_use_id: "e1", path: "src/c.ts", server: "typescript", problems: problems(5) } },
  ]);
  const [first, second] = tasks.get("t")!.items.flatMap((i) => (i.kind === "tool" ? [i.card] : []));
  const shown = problemsOf(first!)!;
  expect(shown.count).toBe(13);
  expect(shown.shown).toHaveLength(10);
  expect(shown.shown[0]).toEqual({ path: "src/a.ts", line: 1, column: 7, code: "TS2345", message: "Problem 1" });
  expect(shown.shown[9]).toMatchObject({ path: "src/c.ts", line: 2 });
  expect(problemsOf(second!)).toBeUndefined();
});
