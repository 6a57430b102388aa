import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editPreview } from "./edit-preview.js";
import { diffHunks } from "./line-diff.js";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-preview-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("line diff", () => {
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

  it("aligns moved and inserted lines instead of replacing everything", () => {
    const { added, removed } = diffHunks("one\ntwo\nthree\n", "one\ninserted\ntwo\nthree\n");
    expect({ added, removed }).toEqual({ added: 1, removed: 0 });
  });
});

describe("edit preview", () => {
  it("write_to_file over an existing file: the diff against what is on disk now", () => {
    writeFileSync(path.join(dir, "a.txt"), "one\ntwo\n");
    const preview = editPreview(dir, "write_to_file", { path: "a.txt", content: "one\nTWO\n" })!;
    expect(preview).toMatchObject({ path: "a.txt", created: false, added: 1, removed: 1 });
  });

  it("write_to_file of a new file: every line added", () => {
    const preview = editPreview(dir, "write_to_file", { path: "sub/new.ts", content: "a\nb\nc" })!;
    expect(preview).toMatchObject({ path: "sub/new.ts", created: true, added: 3, removed: 0 });
  });

  it("replace_in_file: the file with the SEARCH/REPLACE blocks applied", () => {
    writeFileSync(path.join(dir, "app.ts"), "const a = 1;\nconst b = 2;\n");
    const diff = "------- SEARCH\nconst b = 2;\n=======\nconst b = 3;\n+++++++ REPLACE";
    const preview = editPreview(dir, "replace_in_file", { path: "app.ts", diff })!;
    expect(preview.problem).toBeUndefined();
    expect(preview.lines.filter((l) => l.type === "+")).toEqual([{ type: "+", text: "const b = 3;", line: 2 }]);
  });

  it("replace_in_file that cannot apply says so instead of showing a diff", () => {
    writeFileSync(path.join(dir, "app.ts"), "const a = 1;\n");
    const diff = "------- SEARCH\nnot there\n=======\nx\n+++++++ REPLACE";
    expect(editPreview(dir, "replace_in_file", { path: "app.ts", diff })?.problem).toBe("this edit will fail: SEARCH block 1 not found");
    expect(editPreview(dir, "replace_in_file", { path: "missing.ts", diff })?.problem).toBe("this edit will fail: missing.ts does not exist");
  });

  it("other tools and malformed inputs have no preview", () => {
    expect(editPreview(dir, "read_file", { path: "a.txt" })).toBeUndefined();
    expect(editPreview(dir, "write_to_file", { path: "a.txt" })).toBeUndefined();
  });
});
