import { describe, expect, it } from "vitest";
import type { Message } from "../model/types.js";
import { oversizedArgumentChars, shrinkAnsweredCalls } from "./shrink-calls.js";

const big = "x".repeat(oversizedArgumentChars + 1);
const small = "y".repeat(100);

const result = (id: string, isError = false): Message => ({
  role: "user",
  content: [{ type: "tool-result", toolCallId: id, toolName: "write_to_file", content: [{ type: "text", text: isError ? "failed" : "ok" }], isError }],
});

describe("shrinkAnsweredCalls", () => {
  it("replaces an answered call's oversized value with a note naming the path, size and outcome", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "task" }] },
      { role: "assistant", content: [{ type: "tool-call", id: "a", name: "write_to_file", input: { path: "big.txt", content: big } }] },
      result("a"),
      { role: "assistant", content: [{ type: "tool-call", id: "b", name: "write_to_file", input: { path: "other.txt", content: big } }] },
      result("b", true),
    ];
    const out = shrinkAnsweredCalls(messages);
    expect(out.shrunk).toBe(2);
    const first = out.messages[1]!.content[0];
    expect(first).toMatchObject({ type: "tool-call", input: { path: "big.txt" } });
    const firstNote = (first as unknown as { input: { content: string } }).input.content;
    expect(firstNote).toMatch(/^\[write_to_file content for big\.txt: 8,001 characters, sha256 [0-9a-f]{16}…; it was applied/);
    expect((out.messages[3]!.content[0] as unknown as { input: { content: string } }).input.content).toContain("the call failed");
    // The input objects of the original conversation are not touched.
    expect((messages[1]!.content[0] as unknown as { input: { content: string } }).input.content).toBe(big);
  });

  it("leaves small values, and calls still waiting for a result, as they are", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "task" }] },
      { role: "assistant", content: [{ type: "tool-call", id: "a", name: "write_to_file", input: { path: "s.txt", content: small } }] },
      result("a"),
      { role: "assistant", content: [{ type: "tool-call", id: "b", name: "write_to_file", input: { path: "big.txt", content: big } }] },
    ];
    const out = shrinkAnsweredCalls(messages);
    expect(out.shrunk).toBe(0);
    expect(out.messages).toBe(messages);
  });

  it("shrinks each oversized xml value in an answered reply, keeping the tags and the small values", () => {
    const text = `Writing two files.\n<write_to_file>\n<path>a.txt</path>\n<content>\n${big}\n</content>\n</write_to_file>\n<write_to_file>\n<path>b.txt</path>\n<content>\n${small}\n</content>\n</write_to_file>\n<replace_in_file>\n<path>c.txt</path>\n<diff>\n${big}\n</diff>\n</replace_in_file>`;
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "task" }] },
      { role: "assistant", content: [{ type: "text", text }] },
      { role: "user", content: [{ type: "text", text: "[write_to_file for 'a.txt'] Result:\nok" }] },
    ];
    const out = shrinkAnsweredCalls(messages);
    const shrunk = (out.messages[1]!.content[0] as { text: string }).text;
    expect(shrunk).not.toContain(big);
    expect(shrunk).toContain(small);
    expect(shrunk).toMatch(/<content>\[write_to_file content for a\.txt: 8,003 characters/);
    expect(shrunk).toMatch(/<diff>\[replace_in_file diff for c\.txt: 8,003 characters/);
    expect(shrunk.startsWith("Writing two files.\n<write_to_file>\n<path>a.txt</path>\n<content>[")).toBe(true);
  });
});
