import { describe, expect, it } from "vitest";
import type { Message } from "../model/types.js";
import { noToolReason } from "./stop-conditions.js";

const said = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const called: Message = { role: "assistant", content: [{ type: "tool-call", id: "t", name: "read_file", input: { path: "a" } }] };

describe("noToolReason", () => {
  it("names --protocol xml when a native model never called a tool", () => {
    expect(noToolReason(3, "native", [said("hi"), said("hello")])).toBe(
      "the model never called a tool (3 replies in a row without one); if it does not support function calling, run with --protocol xml",
    );
  });

  it("keeps the plain reason once the model has called a tool, or under the xml protocol", () => {
    expect(noToolReason(3, "native", [called, said("done?")])).toBe("the model replied 3 times in a row without using a tool");
    expect(noToolReason(3, "xml", [said("hi")])).toBe("the model replied 3 times in a row without using a tool");
  });
});
