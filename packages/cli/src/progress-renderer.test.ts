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
});
