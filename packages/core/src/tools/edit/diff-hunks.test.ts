import { describe, expect, it } from "vitest";
import { diffHunks } from "./diff-hunks.js";

describe("diff hunks", () => {
  it("keeps two lines of context and folds the rest", () => {
    const before = "a\nb\nc\nd\ne\nf\ng\nh\n";
    const { lines, added, removed } = diffHunks(before, before.replace("e", "E"));
    expect({ added, removed }).toEqual({ added: 1, removed: 1 });
    expect(lines).toEqual([
      { type: "gap", skipped: 2 },
      { type: " ", text: "c", line: 3 },
      { type: " ", text: "d", line: 4 },
      { type: "-", text: "e", line: 5 },
      { type: "+", text: "E", line: 5 },
      { type: " ", text: "f", line: 6 },
      { type: " ", text: "g", line: 7 },
      { type: "gap", skipped: 1 },
    ]);
  });

  it("aligns inserted lines instead of replacing everything", () => {
    const { lines, added, removed } = diffHunks("one\ntwo\nthree\n", "one\ninserted\ntwo\nthree\n");
    expect({ added, removed }).toEqual({ added: 1, removed: 0 });
    expect(lines.filter((l) => l.type === "+")).toEqual([{ type: "+", text: "inserted", line: 2 }]);
  });

  it("a new file is all added; CRLF and LF lines compare equal; no change is no lines", () => {
    expect(diffHunks("", "a\nb")).toMatchObject({ added: 2, removed: 0 });
    expect(diffHunks("a\r\nb\r\n", "a\nb\n")).toEqual({ lines: [], added: 0, removed: 0 });
  });
});
