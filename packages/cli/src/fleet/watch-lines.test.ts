import type { AgentEvent } from "@cairn/core";
import { describe, expect, it } from "vitest";
import { WatchLines } from "./watch-lines.js";

const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const call = (id: string, name: string, summary: string): AgentEvent => ({ type: "tool_call", tool_use_id: id, name, kind: "edit", input: {}, summary, status: "pending", locations: [] });
const reply = (id: string, text: string): AgentEvent => ({ type: "assistant", session_id: "s", message: { id, role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: "stop", usage } });

const watched = (events: AgentEvent[], watch = new WatchLines()) => events.flatMap((e) => watch.lines(e));

describe("fleet watch", () => {
  it("prints complete replies, calls, failed and denied calls, retries, errors and the result", () => {
    expect(
      watched([
        { type: "message_start", message_id: "m1" },
        call("tool_a", "write_to_file", "write a.txt"),
        { type: "tool_call_update", tool_use_id: "tool_a", name: "write_to_file", status: "running" },
        { type: "tool_call_update", tool_use_id: "tool_a", name: "write_to_file", status: "completed", content: "ok", is_error: false },
        // The provider reused its id; Cairn's tell the calls apart.
        call("tool_b", "write_to_file", "write b.txt"),
        { type: "tool_call_update", tool_use_id: "tool_b", name: "write_to_file", status: "denied", content: "no", is_error: true, decision: { approved: false, by: "rule", reason: "deny rule" } },
        reply("m1", "  Wrote a.txt; b.txt was refused.\n"),
        { type: "system", subtype: "api_retry", attempt: 1, max_retries: 3, retry_delay_ms: 1500, error_status: 429, error: "rate limited" },
        { type: "error", kind: "network", message: "socket hang up" },
        { type: "result", subtype: "success", is_error: false, result: "Done.", num_turns: 1, duration_ms: 1, duration_api_ms: 1, total_cost_usd: null, usage, session_id: "s", permission_denials: [] },
      ]),
    ).toEqual([
      "→ write a.txt",
      "→ write b.txt",
      "  write_to_file denied",
      "Wrote a.txt; b.txt was refused.",
      "   model request failed (429); retry 1 in 1.5s",
      "error: socket hang up",
      "result (success): Done.",
    ]);
  });

  it("prints no escape sequence from the queue, and names an event it cannot read instead of failing", () => {
    const watch = new WatchLines();
    expect(watched([call("tool_a", "execute_command", "$ echo \u001b]52;c;ZWNobw==\u0007hi\u001b[2J")], watch)).toEqual(["→ $ echo hi"]);
    const broken = { type: "diagnostics", tool_use_id: "tool_a", path: "a.ts" } as unknown as AgentEvent;
    expect(watch.lines(broken)).toEqual(["   (an event watch cannot read: diagnostics)"]);
    expect(watch.lines({ type: "tool_call_update", tool_use_id: "tool_a", name: "execute_command", status: "failed", content: "x", is_error: true })).toEqual(["  execute_command failed"]);
  });

  it("a new attempt starts the task's lines over", () => {
    const watch = new WatchLines();
    watched([call("tool_a", "write_to_file", "write a.txt")], watch);
    watch.restart();
    expect(watched([call("tool_a", "write_to_file", "write a.txt")], watch)).toEqual(["→ write a.txt"]);
  });
});
