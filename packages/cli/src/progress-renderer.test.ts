import type { AgentEvent } from "@cairn/core";
import { describe, expect, it } from "vitest";
import { ProgressRenderer } from "./progress-renderer.js";

function render(events: AgentEvent[]): string {
  let out = "";
  const renderer = new ProgressRenderer((text) => (out += text), { intervalMs: 0 });
  for (const event of events) renderer.render(event);
  renderer.close();
  return out;
}

const discarded = (id: string): AgentEvent => ({ type: "stream_discarded", message_id: id, reason: "socket hang up" });

describe("headless progress", () => {
  it("says a reply was discarded only when some of it had been written", () => {
    expect(render([discarded("m_0")])).toBe("");
    const shown = render([{ type: "text_delta", message_id: "m_1", text: "Half a sen" }, discarded("m_1"), discarded("m_2")]);
    expect(shown).toBe("Half a sen\n[the response above was discarded: socket hang up]\n");
  });

  it("says under an edit how many problems it introduced, and the first", () => {
    const problem = (line: number, message: string, code?: string) => ({ line, column: 7, severity: "error" as const, message, ...(code ? { code } : {}) });
    const out = render([
      { type: "tool_call", tool_use_id: "e1", name: "write_to_file", kind: "edit", input: { path: "a.ts" }, summary: "write a.ts", status: "pending", locations: [] },
      { type: "diagnostics", tool_use_id: "e1", path: "src/a.ts", server: "typescript", problems: [problem(3, "Argument of type 'string' is not assignable\nto parameter of type 'number'.", "TS2345"), problem(9, "Cannot find name 'x'.", "TS2304")] },
      { type: "diagnostics", tool_use_id: "e1", path: "b.py", server: "pyright", problems: [problem(1, "Type mismatch")] },
      { type: "diagnostics", tool_use_id: "e1", path: "c.ts", server: "typescript", problems: [] },
    ]);
    expect(out).toBe(
      "→ write a.ts\n  2 new problems: src/a.ts:3:7 TS2345 Argument of type 'string' is not assignable …\n  1 new problem: b.py:1:7 Type mismatch\n",
    );
  });

  it("shows a command's output lines as they come, then its exit code", () => {
    const out = render([
      { type: "tool_call", tool_use_id: "c1", name: "execute_command", kind: "command", input: { command: "make" }, summary: "$ make", status: "pending", locations: [] },
      { type: "tool_call_update", tool_use_id: "c1", name: "execute_command", status: "running" },
      { type: "tool_output", tool_use_id: "c1", text: "compiling\n" },
      { type: "tool_output", tool_use_id: "c1", text: "linking\n" },
      { type: "tool_call_update", tool_use_id: "c1", name: "execute_command", content: "Command: make\nExit code: 2\nOutput:\ncompiling\nlinking\n", is_error: false, status: "completed" },
    ]);
    expect(out).toBe("→ $ make\n  │ compiling\n  │ linking\n  ✗ exit code 2\n");
  });

  it("lets no escape sequence or control of the model's or a tool's text reach the terminal", () => {
    const osc52 = "\u001b]52;c;ZWNobyBvd25lZA==\u0007";
    const clear = "\u001b[2J\u001b[H";
    const out = render([
      // Streamed in pieces that split the sequences: each is still dropped whole, payload and all.
      { type: "text_delta", message_id: "m_1", text: `Done${osc52.slice(0, 9)}` },
      { type: "text_delta", message_id: "m_1", text: `${osc52.slice(9)}${clear.slice(0, 3)}` },
      { type: "text_delta", message_id: "m_1", text: `${clear.slice(3)} and clean.\r\n` },
      { type: "tool_call", tool_use_id: "c1", name: "execute_command", kind: "command", input: {}, summary: `$ echo ${clear}hi`, status: "pending", locations: [] },
      { type: "tool_output", tool_use_id: "c1", text: `out${osc52}put\n` },
      { type: "tool_call_update", tool_use_id: "c1", name: "execute_command", content: `Exit code: 1${clear}`, is_error: true, status: "failed" },
      { type: "error", kind: "model", message: `bad \u009b2J\u202eterm` },
      { type: "question", tool_use_id: "c2", question: `Which${osc52}?`, options: [`a${clear}`, "b"] },
    ]);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(out).toBe("Done and clean.\n→ $ echo hi\n  │ output\n  ✗ exit code 1\n✗ bad term\n? Which?\n  options: a | b\n");
  });

  it("writes a reply once as it streams: a retry takes back only its own attempt, the complete message adds nothing", () => {
    const out = render([
      { type: "message_start", message_id: "m_1" },
      { type: "text_delta", message_id: "m_1", text: "Part one, " },
      { type: "message_start", message_id: "m_1" },
      { type: "text_delta", message_id: "m_1", text: "garb" },
      discarded("m_1"),
      { type: "message_start", message_id: "m_1" },
      { type: "text_delta", message_id: "m_1", text: "part two.\n" },
      {
        type: "assistant",
        session_id: "s",
        message: { id: "m_1", role: "assistant", model: "m", content: [{ type: "text", text: "Part one, part two.\n" }], stop_reason: "stop", usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } },
      },
    ]);
    expect(out).toBe("Part one, garb\n[the response above was discarded: socket hang up]\npart two.\n");
  });

  it("gives each call its own lines when the provider reused its id (Cairn's ids tell them apart)", () => {
    const call = (id: string, summary: string): AgentEvent => ({ type: "tool_call", tool_use_id: id, name: "write_to_file", kind: "edit", input: {}, summary, status: "pending", locations: [] });
    const out = render([
      call("tool_a", "write a.txt"),
      { type: "tool_call_update", tool_use_id: "tool_a", name: "write_to_file", status: "completed", content: "Created a.txt", is_error: false },
      call("tool_b", "write b.txt"),
      { type: "tool_call_update", tool_use_id: "tool_b", name: "write_to_file", status: "denied", content: "Denied", is_error: true, decision: { approved: false, by: "user", reason: "not that one" } },
    ]);
    expect(out).toBe("→ write a.txt\n  ✓ Created a.txt\n→ write b.txt\n  ✗ denied (user): not that one\n");
  });

  it("shows each sub-agent's steps and end under its call, and the call's tally", () => {
    const out = render([
      { type: "tool_call", tool_use_id: "u1", name: "use_subagents", kind: "read", input: {}, summary: "2 sub-agents", status: "pending", locations: [] },
      { type: "subagent", parent_tool_use_id: "u1", index: 0, task_id: "s1", status: "running", activity: "read notes.txt" },
      { type: "subagent", parent_tool_use_id: "u1", index: 1, task_id: "s2", status: "running", activity: "list src" },
      { type: "subagent", parent_tool_use_id: "u1", index: 0, task_id: "s1", status: "completed", activity: "notes say hi\nmore" },
      { type: "subagent", parent_tool_use_id: "u1", index: 1, task_id: "s2", status: "failed", activity: "stopped" },
      {
        type: "tool_call_update",
        tool_use_id: "u1",
        name: "use_subagents",
        status: "completed",
        content: '<subagent index="1" task="s1" status="completed">\nhi\n</subagent>\n<subagent index="2" task="s2" status="failed">\nstopped\n</subagent>',
        is_error: false,
      },
    ]);
    expect(out).toBe("→ 2 sub-agents\n  · sub-agent 1: read notes.txt\n  · sub-agent 2: list src\n  ✓ sub-agent 1: notes say hi\n  ✗ sub-agent 2: stopped\n  ✗ 2 sub-agents finished, 1 failed\n");
  });
});
