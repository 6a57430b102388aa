import { describe, expect, it } from "vitest";
import { applyDiff, StreamingDiffApplier, type ApplyResult, type PreviewUpdate } from "./streaming-applier.js";

const file = "\uFEFFheader\r\none\r\ntwo\r\n    three\r\nfour\r\nfooter";
const diff = [
  "------- SEARCH",
  "footer",
  "=======",
  "footer",
  "appended",
  "+++++++ REPLACE",
  "<<<<<<< SEARCH",
  "one",
  "=======",
  ">>>>>>> REPLACE",
  "",
  "------- SEARCH",
  "three   ",
  "=======",
  "three",
  "3.5 — ünïcödé 🎉",
  "+++++++ REPLACE",
  "------- SEARCH",
  "header",
  "=======",
  "HEADER",
].join("\n");
const expected = "\uFEFFHEADER\r\ntwo\r\n    three\r\n    3.5 — ünïcödé 🎉\r\nfour\r\nfooter\r\nappended";

function feed(chunks: readonly string[]): { updates: PreviewUpdate[]; result: ApplyResult } {
  const applier = new StreamingDiffApplier(file);
  const updates = chunks.flatMap((chunk) => applier.push(chunk));
  return { updates, result: applier.finish() };
}

const contentOf = (result: ApplyResult): string | undefined => (result.ok ? result.content : undefined);

describe("StreamingDiffApplier", () => {
  it("gives the same final content as one push, and as applyDiff", () => {
    expect(contentOf(feed([diff]).result)).toBe(expected);
    expect(contentOf(applyDiff(file, diff))).toBe(expected);
  });

  it("gives the same final content fed one character at a time", () => {
    expect(contentOf(feed([...diff]).result)).toBe(expected);
  });

  it("gives the same final content and previews split at every offset", () => {
    const whole = feed([diff]);
    for (let at = 0; at <= diff.length; at++) {
      const split = feed([diff.slice(0, at), diff.slice(at)]);
      expect(contentOf(split.result)).toBe(expected);
      expect(split.updates).toEqual(whole.updates);
    }
  });

  it("reports each block as it completes, with the preview so far and where the block landed", () => {
    const applier = new StreamingDiffApplier("a\nb\nc\n");
    expect(applier.push("------- SEARCH\nc\n=======\nC1\nC2\n+++++++ REPL")).toEqual([]);
    expect(applier.push("ACE\n")).toEqual([
      { block: 1, blocksApplied: 1, preview: "a\nb\nC1\nC2\n", changedRange: { startLine: 3, lineCount: 2 } },
    ]);
    expect(applier.push("------- SEARCH\na\n=======\n+++++++ REPLACE\n")).toEqual([
      { block: 2, blocksApplied: 2, preview: "b\nC1\nC2\n", changedRange: { startLine: 1, lineCount: 0 } },
    ]);
    expect(applier.push("------- SEARCH\nb\n=======\nB\n")).toEqual([]);
    expect(applier.finish()).toMatchObject({ ok: true, content: "B\nC1\nC2\n", blockCount: 3 });
  });

  it("keeps previewing blocks that apply after one fails, and finish() reports the failure", () => {
    const applier = new StreamingDiffApplier("a\nb\n");
    const updates = [
      ...applier.push("------- SEARCH\nzzz\n=======\nx\n+++++++ REPLACE\n"),
      ...applier.push("------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n"),
    ];
    expect(applier.blockFailures).toEqual([{ kind: "no-match", block: 1, search: ["zzz"] }]);
    expect(updates.map((u) => [u.block, u.blocksApplied, u.preview])).toEqual([[2, 1, "a\nB\n"]]);
    const result = applier.finish();
    expect(result.ok).toBe(false);
    expect(!result.ok && result.failure).toEqual({ blocks: [{ kind: "no-match", block: 1, search: ["zzz"] }], blockCount: 2 });
  });

  it("stops at a format error and reports it with the blocks that failed before it", () => {
    const applier = new StreamingDiffApplier("a\n");
    applier.push("------- SEARCH\nq\n=======\nx\n+++++++ REPLACE\n-------SEARCH\n");
    expect(applier.push("------- SEARCH\na\n=======\nA\n+++++++ REPLACE\n")).toEqual([]);
    const result = applier.finish();
    expect(!result.ok && result.failure.parse?.line).toBe(6);
    expect(!result.ok && result.failure.blocks.map((f) => f.kind)).toEqual(["no-match"]);
  });

  it("applies every block of a long diff streamed in small chunks, reporting each once", () => {
    const lines = Array.from({ length: 2_000 }, (_, i) => `line ${i}`);
    const original = `${lines.join("\n")}\n`;
    const blocks = lines
      .filter((_, i) => i % 100 === 0)
      .map((line) => `------- SEARCH\n${line}\n=======\n${line} edited\n+++++++ REPLACE`)
      .join("\n");
    const applier = new StreamingDiffApplier(original);
    const updates: PreviewUpdate[] = [];
    for (let at = 0; at < blocks.length; at += 3) updates.push(...applier.push(blocks.slice(at, at + 3)));
    const result = applier.finish();
    expect(updates.map((u) => u.block)).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    expect(contentOf(result)?.split("\n").filter((l) => l.endsWith(" edited"))).toHaveLength(20);
  });
});
