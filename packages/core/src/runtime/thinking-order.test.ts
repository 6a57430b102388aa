import { describe, expect, it } from "vitest";
import type { AssistantMessage, ReasoningPart } from "../model/types.js";
import { placeThinking, type ThinkingPlace } from "./thinking-order.js";

const think = (text: string): ReasoningPart => ({ type: "reasoning", text, signature: `sig-${text}` });
const call = (id: string) => ({ type: "tool-call" as const, id, name: "read_file", input: { path: id } });

describe("placeThinking", () => {
  it("puts blocks back between the text and the calls they came between", () => {
    const [a, b, c] = [think("a"), think("b"), think("c")];
    const message: AssistantMessage = { role: "assistant", content: [a, b, c, { type: "text", text: "Let me read.Now the other." }, call("x"), call("y")] };
    const places = new Map<ReasoningPart, ThinkingPlace>([
      [a, { textAt: 0, callsAt: 0 }],
      [b, { textAt: 12, callsAt: 1 }],
      [c, { textAt: 26, callsAt: 2 }],
    ]);
    expect(placeThinking(message, places).content).toEqual([
      a,
      { type: "text", text: "Let me read." },
      call("x"),
      b,
      { type: "text", text: "Now the other." },
      call("y"),
      c,
    ]);
  });

  it("leaves a reply whose thinking all came first as it was", () => {
    const a = think("a");
    const message: AssistantMessage = { role: "assistant", content: [a, { type: "text", text: "hi" }, call("x")] };
    expect(placeThinking(message, new Map([[a, { textAt: 0, callsAt: 0 }]]))).toBe(message);
  });
});
