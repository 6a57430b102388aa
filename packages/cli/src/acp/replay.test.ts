import { describe, expect, it } from "vitest";
import { replayUpdates } from "./replay.js";

describe("replayUpdates", () => {
  it("shows the person's words without what Cairn added, the agent's text, its calls with their results, and a completion as a message", () => {
    const updates = replayUpdates([
      { role: "user", content: [{ type: "text", text: "fix the bug\n\n<environment_details>\n# cwd /w\n</environment_details>" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "look first" },
          { type: "text", text: "Reading it." },
          { type: "tool-call", id: "t1", name: "read_file", input: { path: "a.ts" } },
        ],
      },
      { role: "user", content: [{ type: "tool-result", toolCallId: "t1", toolName: "read_file", content: [{ type: "text", text: "const a = 1;" }], isError: false }] },
      { role: "assistant", content: [{ type: "tool-call", id: "t2", name: "attempt_completion", input: { result: "Fixed." } }] },
    ]);
    expect(updates).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "fix the bug" } },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "look first" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Reading it." } },
      {
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "read_file a.ts",
        kind: "read",
        status: "completed",
        rawInput: { path: "a.ts" },
        content: [{ type: "content", content: { type: "text", text: "const a = 1;" } }],
      },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "\n\nFixed.\n" } },
    ]);
  });

  it("a call without a recorded result (a run cut short) shows as failed", () => {
    const updates = replayUpdates([{ role: "assistant", content: [{ type: "tool-call", id: "t1", name: "execute_command", input: { command: "make" } }] }]);
    expect(updates).toMatchObject([{ sessionUpdate: "tool_call", status: "failed", kind: "execute" }]);
  });

  it("leaves out the environment line each turn's results carry: it is Cairn's, not the person's", () => {
    const updates = replayUpdates([
      { role: "user", content: [{ type: "tool-result", toolCallId: "t1", toolName: "read_file", content: [{ type: "text", text: "x" }], isError: false }, { type: "text", text: "[Environment: 2026-11-25 00:30 UTC · ACT mode · context 2,778 / 200,000 tokens (1%)]" }] },
      { role: "user", content: [{ type: "text", text: "next, please\n\n[Environment: 2026-11-25 00:31 UTC · ACT mode · context 3,007 / 200,000 tokens (2%)]" }] },
    ]);
    expect(updates).toEqual([{ sessionUpdate: "user_message_chunk", content: { type: "text", text: "next, please" } }]);
  });
});
