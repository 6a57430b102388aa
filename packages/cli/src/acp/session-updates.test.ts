import { describe, expect, it } from "vitest";
import { SessionUpdates } from "./session-updates.js";

describe("SessionUpdates: an edit's new problems", () => {
  it("lists a language server's new problems under the edit's result, in place of the model's <new_problems> block", () => {
    const updates = new SessionUpdates("/ws");
    updates.map({ type: "tool_call", tool_use_id: "t1", name: "write_to_file", kind: "edit", input: { path: "a.ts" }, summary: "write a.ts", status: "pending", locations: ["/ws/a.ts"] });
    updates.map({ type: "diagnostics", tool_use_id: "t1", path: "a.ts", server: "typescript", problems: [{ line: 3, column: 7, severity: "error", code: "TS2345", message: "Argument of type 'string' is not assignable to parameter of type 'number'." }] });
    const result = 'Wrote a.ts.\n<new_problems path="a.ts">\nThis edit introduced 1 new error (reported by typescript); fix it:\nLine 3:7 error TS2345: Argument…\n</new_problems>';
    const [end] = updates.map({ type: "tool_call_update", tool_use_id: "t1", name: "write_to_file", status: "completed", content: result, is_error: false });
    expect(end).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
    const text = (end as { content: Array<{ content: { text: string } }> }).content.at(-1)!.content.text;
    expect(text).toBe("Wrote a.ts.\n\n1 new problem:\na.ts:3:7 error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.");
  });

  it("leaves a clean edit's result as the model got it", () => {
    const updates = new SessionUpdates("/ws");
    updates.map({ type: "tool_call", tool_use_id: "t2", name: "write_to_file", kind: "edit", input: { path: "b.ts" }, summary: "write b.ts", status: "pending", locations: ["/ws/b.ts"] });
    const [end] = updates.map({ type: "tool_call_update", tool_use_id: "t2", name: "write_to_file", status: "completed", content: "Wrote b.ts.", is_error: false });
    expect((end as { content: Array<{ content: { text: string } }> }).content.at(-1)!.content.text).toBe("Wrote b.ts.");
  });
});

describe("SessionUpdates: a reply's text goes out once it can no longer be discarded", () => {
  const delta = (text: string): Parameters<SessionUpdates["map"]>[0] => ({ type: "text_delta", message_id: "m1", text });

  it("a retried attempt's text never goes out; the retry's does, as one chunk of its message, before the call it carries", () => {
    const updates = new SessionUpdates("/ws");
    expect(updates.map({ type: "message_start", message_id: "m1" })).toEqual([]);
    expect(updates.map(delta("thrown "))).toEqual([]);
    expect(updates.map(delta("away"))).toEqual([]);
    expect(updates.map({ type: "stream_discarded", message_id: "m1", reason: "socket hang up" })).toEqual([]);
    expect(updates.map({ type: "message_start", message_id: "m1" })).toEqual([]);
    updates.map(delta("Kept "));
    updates.map(delta("text."));
    const sent = updates.map({ type: "tool_call", tool_use_id: "t1", name: "read_file", kind: "read", input: { path: "a" }, summary: "read a", status: "pending", locations: [] });
    expect(sent.map((u) => u.sessionUpdate)).toEqual(["agent_message_chunk", "tool_call"]);
    expect(sent[0]).toEqual({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "Kept text." } });
  });

  it("a continuation keeps what came before it; a cancelled turn's held text goes out at its end", () => {
    const updates = new SessionUpdates("/ws");
    updates.map(delta("first piece "));
    expect(updates.map({ type: "message_start", message_id: "m1" })).toMatchObject([{ content: { text: "first piece " } }]);
    updates.map({ type: "reasoning_delta", message_id: "m1", text: "hmm" });
    updates.map(delta("cut by the cancel"));
    expect(updates.release()).toEqual([
      { sessionUpdate: "agent_thought_chunk", messageId: "m1/thinking", content: { type: "text", text: "hmm" } },
      { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "cut by the cancel" } },
    ]);
    expect(updates.release()).toEqual([]);
  });
});
