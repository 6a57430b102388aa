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
});
