import { describe, expect, it } from "vitest";
import type { AgentEvent } from "./agent-event.js";
import { foldToolCall, MAX_CARD_OUTPUT_CHARS, toolCallIdOf, type ToolCallRecord } from "./tool-call-record.js";

/** The records of the calls the events are about, keyed by tool_use_id, as the transcript keeps its cards. */
function fold(events: AgentEvent[]): Map<string, ToolCallRecord> {
  const records = new Map<string, ToolCallRecord>();
  for (const event of events) {
    const id = toolCallIdOf(event);
    const record = id === undefined ? undefined : foldToolCall(records.get(id), event);
    if (record) records.set(id!, record);
  }
  return records;
}
const called = (id: string, name = "execute_command"): AgentEvent => ({ type: "tool_call", tool_use_id: id, name, kind: "command", input: { command: "make" }, summary: "$ make", status: "pending", locations: [] });

describe("foldToolCall", () => {
  it("follows one call from pending through approval and output to its end", () => {
    const approval = { category: "all-commands" as const, summary: "$ make", suggested_rule: "execute_command(make)" };
    const decision = { approved: true, by: "user" as const, reason: "approved by the user" };
    const steps: AgentEvent[] = [
      called("c1"),
      { type: "tool_call_update", tool_use_id: "c1", name: "execute_command", status: "awaiting_approval", approval },
      { type: "tool_call_update", tool_use_id: "c1", name: "execute_command", status: "running", decision },
      { type: "tool_output", tool_use_id: "c1", text: "compiling\n" },
      { type: "tool_output", tool_use_id: "c1", text: "done\n" },
      { type: "tool_call_update", tool_use_id: "c1", name: "execute_command", status: "completed", content: "Exit code: 0", is_error: false, decision },
    ];
    const seen = steps.map((_, i) => fold(steps.slice(0, i + 1)).get("c1")!.status);
    expect(seen).toEqual(["pending", "awaiting_approval", "running", "running", "running", "completed"]);
    expect(fold(steps).get("c1")).toEqual({
      tool_use_id: "c1",
      name: "execute_command",
      kind: "command",
      input: { command: "make" },
      summary: "$ make",
      status: "completed",
      approval,
      decision,
      locations: [],
      output: "compiling\ndone\n",
      output_chars: 15,
      output_lines: 2,
      content: "Exit code: 0",
      is_error: false,
      diagnostics: [],
      subagents: [],
    });
  });

  it("a denial keeps who refused and why; calls are kept apart by tool_use_id", () => {
    const records = fold([
      called("a"),
      called("b", "write_to_file"),
      { type: "tool_call_update", tool_use_id: "a", name: "execute_command", status: "denied", content: "Blocked", is_error: true, decision: { approved: false, by: "hook", reason: "no" } },
      { type: "tool_call_update", tool_use_id: "b", name: "write_to_file", status: "cancelled", content: "Skipped", is_error: true },
    ]);
    expect(records.get("a")).toMatchObject({ status: "denied", decision: { by: "hook", reason: "no" }, is_error: true });
    expect(records.get("b")).toMatchObject({ status: "cancelled", content: "Skipped" });
  });

  it("keeps the call's one preview: its approval's, or an edit's from its running update", () => {
    const asked = { type: "diff" as const, path: "a.txt", old_text: "a\n", new_text: "b\n" };
    const ran = { type: "diff" as const, path: "n.txt", old_text: null, new_text: "n\n" };
    const records = fold([
      called("e1", "write_to_file"),
      { type: "tool_call_update", tool_use_id: "e1", name: "write_to_file", status: "awaiting_approval", approval: { category: "edit", summary: "write a.txt", preview: asked } },
      { type: "tool_call_update", tool_use_id: "e1", name: "write_to_file", status: "running", decision: { approved: true, by: "user", reason: "approved by the user" } },
      { type: "tool_call_update", tool_use_id: "e1", name: "write_to_file", status: "completed", content: "Updated a.txt", is_error: false },
      called("e2", "write_to_file"),
      { type: "tool_call_update", tool_use_id: "e2", name: "write_to_file", status: "running", preview: ran },
      { type: "tool_call_update", tool_use_id: "e2", name: "write_to_file", status: "completed", content: "Created n.txt", is_error: false },
    ]);
    expect(records.get("e1")!.preview).toEqual(asked);
    expect(records.get("e2")!.preview).toEqual(ran);
  });

  it("leaves the given record as it was and ignores updates of calls it never saw", () => {
    const before = foldToolCall(undefined, called("c1"))!;
    const after = foldToolCall(before, { type: "tool_output", tool_use_id: "c1", text: "x" });
    expect(before.output).toBe("");
    expect(after!.output).toBe("x");
    expect(foldToolCall(undefined, { type: "tool_call_update", tool_use_id: "zz", name: "x", status: "running" })).toBeUndefined();
    expect(foldToolCall(before, { type: "usage", model: "m", usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, cost_usd: null, total_cost_usd: null })).toBe(before);
  });

  it("keeps the end of a long output and counts all of it", () => {
    const chunk = `${"x".repeat(1023)}\n`;
    let record = foldToolCall(undefined, called("c1"));
    for (let i = 0; i < 100; i++) record = foldToolCall(record, { type: "tool_output", tool_use_id: "c1", text: chunk });
    expect(record!.output.length).toBe(MAX_CARD_OUTPUT_CHARS);
    expect(record!.output.endsWith(chunk)).toBe(true);
    expect(record).toMatchObject({ output_chars: 100 * 1024, output_lines: 100 });
  });

  it("files an edit's problems and its sub-agents under the call; an event that changes nothing keeps the record", () => {
    const problem = { line: 3, column: 7, severity: "error" as const, message: "Type 'string' is not assignable", code: "TS2322" };
    const steps: AgentEvent[] = [
      called("u1", "use_subagents"),
      { type: "subagent", parent_tool_use_id: "u1", index: 1, task_id: "t2", status: "running", activity: "check b" },
      { type: "subagent", parent_tool_use_id: "u1", index: 0, task_id: "t1", status: "running", activity: "check a" },
      { type: "subagent", parent_tool_use_id: "u1", index: 1, task_id: "t2", status: "completed", activity: "b is fine" },
      { type: "diagnostics", tool_use_id: "u1", path: "a.ts", server: "typescript", problems: [problem] },
    ];
    const record = steps.reduce<ToolCallRecord | undefined>(foldToolCall, undefined)!;
    expect(record.subagents.map((s) => `${s.index} ${s.status} ${s.activity}`)).toEqual(["0 running check a", "1 completed b is fine"]);
    expect(record.diagnostics).toEqual([{ path: "a.ts", server: "typescript", problems: [problem] }]);
    expect(foldToolCall(record, { type: "diagnostics", tool_use_id: "u1", path: "b.ts", server: "typescript", problems: [] })).toBe(record);
  });
});
