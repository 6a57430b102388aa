import { describe, expect, it } from "vitest";
import { askFollowupQuestionTool } from "../tools/ask-followup-question.js";
import { readFileTool } from "../tools/read-file.js";
import { argumentLimits, argumentShapeProblem, argumentSizeProblem } from "./argument-shape.js";
import { nativeProtocol } from "./native.js";
import type { ParsedCall, ProtocolEvent } from "./types.js";
import { xmlProtocol } from "./xml/xml-protocol.js";

/** `{"path":"a.txt","x":[[[…]]]}` with `levels` arrays under x: the object itself is level 1. */
const nested = (levels: number) => `{"path":"a.txt","x":${"[".repeat(levels)}${"]".repeat(levels)}}`;
const calls = (events: ProtocolEvent[]) => events.flatMap((e) => (e.type === "call" ? [e.call] : []));

function native(argsText: string): ParsedCall {
  const parser = nativeProtocol.createParser([readFileTool], "msg_1");
  return calls([...parser.push({ type: "tool-call", id: "c1", name: "read_file", argsText }), ...parser.end()])[0]!;
}

function xml(text: string): ParsedCall[] {
  const parser = xmlProtocol.createParser([readFileTool, askFollowupQuestionTool], "msg_1");
  return calls([...parser.push({ type: "text-delta", text }), ...parser.end()]);
}

describe("the shape of a tool call's arguments", () => {
  it("takes arguments up to the depth limit and refuses one level more", () => {
    expect(argumentShapeProblem("read_file", JSON.parse(nested(argumentLimits.depth - 1)))).toBeUndefined();
    expect(argumentShapeProblem("read_file", JSON.parse(nested(argumentLimits.depth)))).toBe(
      "The arguments of read_file are nested deeper than 64 levels, which Cairn does not accept; send flat arguments.",
    );
  });

  it("walks 100,000 levels without overflowing the stack", () => {
    expect(argumentShapeProblem("read_file", JSON.parse(nested(100_000)))).toMatch(/nested deeper than 64 levels/);
  });

  it("refuses more values than the limit, however flat", () => {
    const wide = { items: Array.from({ length: argumentLimits.values }, (_, i) => i) };
    expect(argumentShapeProblem("x", wide)).toMatch(/more than 1,000,000 values/);
    expect(argumentShapeProblem("x", { items: wide.items.slice(0, 1000) })).toBeUndefined();
  });

  it("refuses text longer than the limit, and takes a 10 MB file", () => {
    expect(argumentSizeProblem("write_to_file", 10_500_000)).toBeUndefined();
    expect(argumentSizeProblem("write_to_file", argumentLimits.chars + 1)).toMatch(/^The arguments of write_to_file are 67,108,865 characters, more than the 67,108,864/);
  });
});

describe("a parser given hostile arguments", () => {
  it("native: a call nested 100,000 deep keeps its id and name, none of its input, and says why", () => {
    const call = native(nested(100_000));
    expect(call).toEqual({ id: "c1", name: "read_file", input: {}, inputError: expect.stringMatching(/nested deeper than 64 levels, .*; send flat arguments\./) });
    // Nothing downstream holds the shape: the call can be recorded.
    expect(() => JSON.stringify(call)).not.toThrow();
  });

  it("native: a reasonable nested argument passes whole", () => {
    const input = { path: "a.txt", meta: { tags: ["x", { deep: [[1, 2], { ok: true }] }] } };
    expect(native(JSON.stringify(input))).toEqual({ id: "c1", name: "read_file", input });
  });

  it("xml: a JSON parameter nested 100,000 deep is refused the same way", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const [call] = xml(`<ask_followup_question>\n<question>Which?</question>\n<options>${deep}</options>\n</ask_followup_question>`);
    expect(call).toMatchObject({ name: "ask_followup_question", input: {}, inputError: expect.stringMatching(/nested deeper than 64 levels/) });
    expect(() => JSON.stringify(call)).not.toThrow();
  });

  it("xml: a JSON parameter of reasonable shape is coerced as before", () => {
    const [call] = xml(`<ask_followup_question>\n<question>Which?</question>\n<options>["a", "b"]</options>\n</ask_followup_question>`);
    expect(call).toEqual({ id: "msg_1_0", name: "ask_followup_question", input: { question: "Which?", options: ["a", "b"] } });
  });

  it("xml: 100,000 nested tags are read as text without overflowing the stack", () => {
    const tags = `${"<read_file><path>".repeat(100_000)}a.txt${"</path></read_file>".repeat(100_000)}`;
    expect(() => JSON.stringify(xml(tags))).not.toThrow();
  });
});
