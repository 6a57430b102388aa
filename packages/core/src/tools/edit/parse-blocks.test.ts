import { describe, expect, it } from "vitest";
import { BlockParser, parseBlocks } from "./parse-blocks.js";

describe("parseBlocks", () => {
  it("reads several blocks with their lines, positions and diff line numbers", () => {
    const diff = "------- SEARCH\na\nb\n=======\nc\n+++++++ REPLACE\n\n------- SEARCH\nd\n=======\n+++++++ REPLACE\n";
    expect(parseBlocks(diff)).toEqual({
      blocks: [
        { index: 1, search: ["a", "b"], replace: ["c"], line: 1 },
        { index: 2, search: ["d"], replace: [], line: 8 },
      ],
    });
  });

  it("keeps content lines exactly: indentation, trailing spaces, blank lines", () => {
    const { blocks } = parseBlocks("------- SEARCH\n\t  x  \n\n=======\n  y\n\n+++++++ REPLACE");
    expect(blocks[0]?.search).toEqual(["\t  x  ", ""]);
    expect(blocks[0]?.replace).toEqual(["  y", ""]);
  });

  it("an empty SEARCH has no lines, a SEARCH of one blank line has one", () => {
    expect(parseBlocks("------- SEARCH\n=======\nx\n+++++++ REPLACE").blocks[0]?.search).toEqual([]);
    expect(parseBlocks("------- SEARCH\n\n=======\nx\n+++++++ REPLACE").blocks[0]?.search).toEqual([""]);
  });

  it("keeps content that merely resembles markers", () => {
    const content = ["- Search the docs", "--search-path", "--search", "  =======", "<<< look here", "a ======= b", "+ replace me"];
    const { blocks, error } = parseBlocks(`------- SEARCH\nx\n=======\n${content.join("\n")}\n+++++++ REPLACE`);
    expect(error).toBeUndefined();
    expect(blocks[0]?.replace).toEqual(content);
  });

  it("stops at the first format error and reports the blocks completed before it", () => {
    const result = parseBlocks("------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n-- SEARCH\nc\n=======\nd\n+++++++ REPLACE");
    expect(result.blocks.map((b) => b.index)).toEqual([1]);
    expect(result.error?.line).toBe(6);
    expect(result.error?.message).toContain("only 2 '-' characters");
  });

  it.each([
    ["-------  SEARCH", "needs exactly one space"],
    ["------- SEARCH:", 'has extra characters ":" after SEARCH'],
    ["+++++++ SEARCH", "a SEARCH marker is made of '-' (or legacy '<') only"],
    ["-<-<-<- SEARCH", "a SEARCH marker is made of"],
    ["======= REPLACE", "a REPLACE marker is made of '+' (or legacy '>') only"],
    [">>>>>>>REPLACE", "has no space between"],
  ])("says what is wrong with %j", (marker, problem) => {
    const { error } = parseBlocks(`------- SEARCH\na\n=======\nb\n${marker}`);
    expect(error?.message).toContain(problem);
    expect(error?.message).toContain(`("${marker}")`);
  });
});

describe("BlockParser (incremental)", () => {
  it("completes a block when its REPLACE marker line ends, not before", () => {
    const parser = new BlockParser();
    expect(parser.push("------- SEARCH\na\n=======\nb\n+++++++ REPL")).toEqual([]);
    expect(parser.push("ACE")).toEqual([]);
    expect(parser.push("\n")).toEqual([{ index: 1, search: ["a"], replace: ["b"], line: 1 }]);
    expect(parser.end()).toEqual([]);
    expect(parser.error).toBeUndefined();
  });

  it("accepts a final block without its REPLACE marker only at the end", () => {
    const parser = new BlockParser();
    expect(parser.push("------- SEARCH\na\n=======\nb\nc")).toEqual([]);
    expect(parser.end()).toEqual([{ index: 1, search: ["a"], replace: ["b", "c"], line: 1 }]);
  });

  it("a final REPLACE marker without a newline completes at the end", () => {
    const parser = new BlockParser();
    parser.push("------- SEARCH\na\n=======\nb\n+++++++ REPLACE");
    expect(parser.end()).toEqual([{ index: 1, search: ["a"], replace: ["b"], line: 1 }]);
  });

  it("ignores input after an error", () => {
    const parser = new BlockParser();
    parser.push("=======\n");
    expect(parser.error?.message).toContain("======= line outside a block");
    expect(parser.push("------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n")).toEqual([]);
    expect(parser.end()).toEqual([]);
  });

  it("gives the same blocks and errors however the diff is split", () => {
    const diffs = [
      "------- SEARCH\r\na\r\n=======\r\nb\r\n+++++++ REPLACE\r\n<<<<<<< SEARCH\nc\n=======\nd",
      "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n+++++++ REPLACE\n",
    ];
    for (const diff of diffs) {
      const whole = parseBlocks(diff);
      for (let at = 0; at <= diff.length; at++) {
        const parser = new BlockParser();
        const blocks = [...parser.push(diff.slice(0, at)), ...parser.push(diff.slice(at)), ...parser.end()];
        expect({ blocks, error: parser.error }).toEqual({ blocks: whole.blocks, error: whole.error });
      }
    }
  });
});
