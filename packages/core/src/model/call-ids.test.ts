import { describe, expect, it } from "vitest";
import { CallIds } from "./call-ids.js";
import type { Message } from "./types.js";

const earlier: Message[] = [
  { role: "assistant", content: [{ type: "tool-call", id: "functions.read_file:0", name: "read_file", input: {} }] },
  { role: "user", content: [{ type: "tool-result", toolCallId: "functions.read_file:0", toolName: "read_file", content: [], isError: false }] },
];

describe("CallIds", () => {
  it("keeps a provider's id the conversation does not hold yet", () => {
    const ids = new CallIds(earlier);
    expect(ids.start("call_abc")).toBe("call_abc");
    expect(ids.delta("call_abc")).toBe("call_abc");
    expect(ids.complete("call_abc")).toBe("call_abc");
  });

  it("renames a call whose id an earlier turn used, from its first event to its last", () => {
    const ids = new CallIds(earlier);
    expect(ids.start("functions.read_file:0")).toBe("functions.read_file:0_2");
    expect(ids.delta("functions.read_file:0")).toBe("functions.read_file:0_2");
    expect(ids.complete("functions.read_file:0")).toBe("functions.read_file:0_2");
  });

  it("renames a second call of one reply that repeats the first one's id", () => {
    const ids = new CallIds([]);
    expect(ids.complete("call_0")).toBe("call_0");
    expect(ids.start("call_0")).toBe("call_0_2");
    expect(ids.complete("call_0")).toBe("call_0_2");
    expect(ids.complete("call_0")).toBe("call_0_3");
  });
});
