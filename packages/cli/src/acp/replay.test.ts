import type { AgentEvent } from "@cairn/core";
import { describe, expect, it } from "vitest";
import { replayUpdates } from "./replay.js";

const call = (id: string, name: string, input: Record<string, unknown>, summary = name): AgentEvent => ({ type: "tool_call", tool_use_id: id, name, kind: "read", input, summary, status: "pending", locations: [] });
const end = (id: string, name: string, status: "completed" | "failed" | "denied", content: string): AgentEvent => ({ type: "tool_call_update", tool_use_id: id, name, status, content, is_error: status !== "completed" });
const assistant = (id: string, content: Extract<AgentEvent, { type: "assistant" }>["message"]["content"]): AgentEvent => ({
  type: "assistant",
  session_id: "s",
  message: { id, role: "assistant", model: "m", content, stop_reason: "tool_use", usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } },
});

describe("replayUpdates: a recorded task as the editor saw it live", () => {
  it("the person's words, each message's thinking and text before its calls, each call under its own id with how it ended, and a completion as a message", () => {
    const updates = replayUpdates(
      [
        { type: "user_message", text: "fix the bug" },
        { type: "turn_start", turn: 1, reason: "task" },
        call("tool_a", "read_file", { path: "a.ts" }, "read a.ts"),
        end("tool_a", "read_file", "completed", "const a = 1;"),
        assistant("msg_1", [{ type: "thinking", thinking: "look first" }, { type: "text", text: "Reading it." }, { type: "tool_use", id: "tool_a", name: "read_file", input: { path: "a.ts" } }]),
        { type: "turn_start", turn: 2, reason: "tool results" },
        call("tool_b", "attempt_completion", { result: "Fixed." }),
        end("tool_b", "attempt_completion", "completed", ""),
      ],
      "/w",
    );
    expect(updates).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "fix the bug" } },
      { sessionUpdate: "agent_thought_chunk", messageId: "msg_1/thinking", content: { type: "text", text: "look first" } },
      { sessionUpdate: "agent_message_chunk", messageId: "msg_1", content: { type: "text", text: "Reading it." } },
      {
        sessionUpdate: "tool_call",
        toolCallId: "tool_a",
        title: "read a.ts",
        kind: "read",
        status: "completed",
        locations: [],
        rawInput: { path: "a.ts" },
        content: [{ type: "content", content: { type: "text", text: "const a = 1;" } }],
      },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "\n\nFixed.\n" } },
    ]);
  });

  it("a call the record has no end for (a run cut short) shows as failed", () => {
    const updates = replayUpdates([call("tool_a", "execute_command", { command: "make" })], "/w");
    expect(updates).toMatchObject([{ sessionUpdate: "tool_call", status: "failed", kind: "execute", content: [{ content: { text: "(no result was recorded)" } }] }]);
  });

  it("a hand-off, recorded by the task it leaves and the one it opens, is the new task's first message once", () => {
    const handoff: AgentEvent = { type: "handoff", from_task_id: "t1", task_id: "t2", context: "GOAL: go on" };
    const updates = replayUpdates([{ type: "user_message", text: "start" }, handoff, handoff, { type: "user_message", text: "later" }], "/w");
    expect(updates.map((u) => (u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? u.content.text : u.sessionUpdate))).toEqual(["start", "GOAL: go on", "later"]);
  });
});
