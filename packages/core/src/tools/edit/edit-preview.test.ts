import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IgnoreRules } from "../../policy/ignore-rules.js";
import { replaceInFileTool } from "../replace-in-file.js";
import type { PreviewContext } from "../tool.js";
import { writeToFileTool } from "../write-to-file.js";

/** The edit tools' preview(input): what the person sees before approving, computed once, never a write. */

let base: string;
let ws: string;
let ctx: PreviewContext;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-preview-")));
  ws = path.join(base, "ws");
  mkdirSync(ws);
  writeFileSync(path.join(ws, ".cairnignore"), "secret.txt\n");
  writeFileSync(path.join(ws, "secret.txt"), "TOP SECRET\n");
  writeFileSync(path.join(ws, "a.txt"), "one\ntwo\n");
  writeFileSync(path.join(base, "outside.txt"), "OUTSIDE\n");
  ctx = { cwd: ws, ignore: new IgnoreRules(ws) };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const replace = (p: string, diff: string) => replaceInFileTool.preview!(replaceInFileTool.parameters.parse({ path: p, diff }), ctx);
const write = (p: string, content: string) => writeToFileTool.preview!(writeToFileTool.parameters.parse({ path: p, content }), ctx);
const block = (search: string, replacement: string) => `------- SEARCH\n${search}\n=======\n${replacement}\n+++++++ REPLACE\n`;

describe("edit previews", () => {
  it("replace_in_file applies its blocks in memory with the edit code; the file is unchanged", () => {
    expect(replace("a.txt", block("two", "TWO"))).toEqual({ type: "diff", path: "a.txt", old_text: "one\ntwo\n", new_text: "one\nTWO\n" });
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("one\ntwo\n");
  });

  it("write_to_file shows the old and new text, null for a new file, and the content as it will be saved", () => {
    expect(write("a.txt", "new\n")).toEqual({ type: "diff", path: "a.txt", old_text: "one\ntwo\n", new_text: "new\n" });
    expect(write("sub/b.ts", "```ts\nx\n```\n")).toEqual({ type: "diff", path: "sub/b.ts", old_text: null, new_text: "x\n" });
  });

  it("says why, never throws, when the diff cannot be shown: the edit will fail, or the file is binary or too large", () => {
    const unavailable = (p: string, reason: string) => ({ type: "diff_unavailable", path: p, reason });
    expect(replace("a.txt", block("not there", "x"))).toEqual(unavailable("a.txt", "this edit will fail: SEARCH block 1 not found"));
    expect(replace("a.txt", block("two", "2") + block("nine", "9") + block("ten", "10") + block("eleven", "11"))).toEqual(
      unavailable("a.txt", "this edit will fail: SEARCH block 2 not found; SEARCH block 3 not found, and 1 more"),
    );
    writeFileSync(path.join(ws, "twice.txt"), "x\nx\n");
    expect(replace("twice.txt", block("x", "y"))).toEqual(unavailable("twice.txt", "this edit will fail: SEARCH block 1 matches 2 places"));
    expect(replace("missing.txt", block("a", "b"))).toEqual(unavailable("missing.txt", "this edit will fail: missing.txt does not exist"));
    writeFileSync(path.join(ws, "bin.dat"), Buffer.from([0, 1, 2]));
    expect(replace("bin.dat", block("a", "b"))).toEqual(unavailable("bin.dat", "this edit will fail: bin.dat is a binary file"));
    expect(write("bin.dat", "text\n")).toEqual(unavailable("bin.dat", "no diff shown: bin.dat is a binary file"));
    writeFileSync(path.join(ws, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(replace("latin1.txt", block("caf", "x"))).toEqual(unavailable("latin1.txt", "this edit will fail: latin1.txt is not UTF-8 text"));
    const big = `${"x".repeat(100)}\n`.repeat(6_000);
    writeFileSync(path.join(ws, "big.txt"), big);
    expect(replace("big.txt", block("x".repeat(100), "y"))).toEqual(unavailable("big.txt", "no diff shown: big.txt is larger than 512 KiB"));
    expect(write("new-big.txt", big)).toEqual(unavailable("new-big.txt", "no diff shown: the new content is larger than 512 KiB"));
    expect(write("dir/", "x")).toEqual(unavailable("dir/", "this edit will fail: dir/ names a folder"));
    // Positive control: a small new file has its diff.
    expect(write("new-small.txt", "small\n")).toEqual({ type: "diff", path: "new-small.txt", old_text: null, new_text: "small\n" });
  });

  it("never reads what the boundary or the ignore files keep out (the preview would leak it to the host)", () => {
    expect(write("secret.txt", "x")).toBeUndefined();
    expect(replace("secret.txt", block("TOP SECRET", "x"))).toBeUndefined();
    expect(write("../outside.txt", "x")).toBeUndefined();
    symlinkSync(path.join(base, "outside.txt"), path.join(ws, "link.txt"));
    expect(write("link.txt", "x")).toBeUndefined();
    expect(replace("link.txt", block("OUTSIDE", "x"))).toBeUndefined();
    // Positive control: the same read inside works.
    expect(write("a.txt", "x")).toMatchObject({ old_text: "one\ntwo\n" });
  });
});

/** With the host's text read ahead (an editor's unsaved buffers): the preview starts from it, as the edit will. */
describe("edit previews from the host's text", () => {
  const host = (texts: Record<string, string>) => {
    ctx = { ...ctx, hostTexts: new Map(Object.entries(texts).map(([p, text]) => [path.join(ws, p), text])) };
  };

  it("write_to_file overwriting shows the buffer as the old text; a new file is still null", () => {
    host({ "a.txt": "unsaved\n" });
    expect(write("a.txt", "new\n")).toEqual({ type: "diff", path: "a.txt", old_text: "unsaved\n", new_text: "new\n" });
    expect(write("fresh.txt", "x\n")).toEqual({ type: "diff", path: "fresh.txt", old_text: null, new_text: "x\n" });
  });

  it("replace_in_file applies one and several blocks to the buffer, not the disk", () => {
    host({ "a.txt": "one\nbuffer\ntwo\nthree\n" });
    expect(replace("a.txt", block("buffer", "BUFFER"))).toEqual({ type: "diff", path: "a.txt", old_text: "one\nbuffer\ntwo\nthree\n", new_text: "one\nBUFFER\ntwo\nthree\n" });
    expect(replace("a.txt", block("one", "1") + block("three", "3"))).toEqual({ type: "diff", path: "a.txt", old_text: "one\nbuffer\ntwo\nthree\n", new_text: "1\nbuffer\ntwo\n3\n" });
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("one\ntwo\n");
  });

  it("a SEARCH that matches the disk but not the buffer says the edit will fail, as it will", () => {
    host({ "a.txt": "rewritten in the editor\n" });
    expect(replace("a.txt", block("two", "TWO"))).toEqual({ type: "diff_unavailable", path: "a.txt", reason: "this edit will fail: SEARCH block 1 not found" });
  });

  it("never falls back to the disk for a file whose text the host did not give, and still holds the ignore rules", () => {
    host({ "secret.txt": "BUFFER SECRET\n" });
    expect(write("a.txt", "x")).toBeUndefined();
    expect(replace("a.txt", block("two", "2"))).toBeUndefined();
    // Text handed over for an ignored file is not shown: the checks run on the path as it is now.
    expect(write("secret.txt", "x")).toBeUndefined();
    expect(replace("secret.txt", block("BUFFER SECRET", "x"))).toBeUndefined();
  });
});
