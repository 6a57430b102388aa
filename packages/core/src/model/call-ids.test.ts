import { describe, expect, it } from "vitest";
import { CallIds, newCallId, wireCallIds } from "./call-ids.js";
import { toProviderPrompt } from "./to-provider-prompt.js";
import type { Message } from "./types.js";

/** Two turns of a provider that numbers calls per response: both calls are its `call_0`. */
const reused: Message[] = [
  { role: "user", content: [{ type: "text", text: "go" }] },
  { role: "assistant", content: [{ type: "tool-call", id: "tool_a", providerId: "call_0", name: "read_file", input: { path: "a" } }] },
  { role: "user", content: [{ type: "tool-result", toolCallId: "tool_a", toolName: "read_file", content: [{ type: "text", text: "A" }], isError: false }] },
  { role: "assistant", content: [{ type: "tool-call", id: "tool_b", providerId: "call_0", name: "read_file", input: { path: "b" } }] },
  { role: "user", content: [{ type: "tool-result", toolCallId: "tool_b", toolName: "read_file", content: [{ type: "text", text: "B" }], isError: false }] },
];

describe("CallIds", () => {
  it("gives every call its own id, whatever the provider calls it, from its first event to its last", () => {
    const ids = new CallIds();
    const first = ids.start("call_0");
    expect(first).toMatch(/^tool_[0-9a-f]{24}$/);
    expect(ids.delta("call_0")).toBe(first);
    expect(ids.complete("call_0")).toBe(first);
    // The same provider id again, in the same reply or the next: another call.
    const second = ids.start("call_0");
    expect(second).not.toBe(first);
    expect(ids.complete("call_0")).toBe(second);
    expect(new CallIds().complete("call_0")).not.toBe(first);
  });

  it("names a call that arrives whole (no start) and one whose deltas come first", () => {
    const ids = new CallIds();
    const whole = ids.complete("x");
    const streamed = ids.delta("y");
    expect(ids.complete("y")).toBe(streamed);
    expect(new Set([whole, streamed, newCallId(), newCallId()]).size).toBe(4);
  });
});

describe("wireCallIds", () => {
  it("sends a call back under the provider's id, and a reused one under Cairn's", () => {
    const wire = wireCallIds(reused, false);
    expect(wire.get("tool_a")).toBe("call_0");
    expect(wire.get("tool_b")).toBe("tool_b");
  });

  it("keeps the provider's id once the call that held it before is gone (compacted away)", () => {
    expect(wireCallIds(reused.slice(3), false).get("tool_b")).toBe("call_0");
  });

  it("on the Anthropic wire, an id it refuses becomes Cairn's, and an old call without a provider id is made fit and unique", () => {
    const messages: Message[] = [
      { role: "assistant", content: [{ type: "tool-call", id: "tool_k", providerId: "functions.read_file:0", name: "read_file", input: {} }] },
      { role: "assistant", content: [{ type: "tool-call", id: "functions.read_file:0", name: "read_file", input: {} }] },
      { role: "assistant", content: [{ type: "tool-call", id: "functions_read_file_0", name: "read_file", input: {} }] },
    ];
    expect([...wireCallIds(messages, true).values()]).toEqual(["tool_k", "functions_read_file_0", "functions_read_file_0_2"]);
    expect([...wireCallIds(messages, false).values()]).toEqual(["functions.read_file:0", "functions.read_file:0_2", "functions_read_file_0"]);
  });

  it("is what the provider prompt carries: each call and its result under one wire id, none repeated", () => {
    for (const anthropic of [false, true]) {
      const prompt = toProviderPrompt("s", reused, { anthropic, images: true });
      const calls = prompt.flatMap((m) => (m.role === "assistant" ? m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : [])) : []));
      const results = prompt.flatMap((m) => (m.role === "tool" ? m.content.flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : [])) : []));
      expect(calls).toEqual(["call_0", "tool_b"]);
      expect(results).toEqual(calls);
    }
  });
});
