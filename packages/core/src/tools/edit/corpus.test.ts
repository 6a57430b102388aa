import { mkdtemp, readFile, realpath, rm, stat, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { replaceInFileTool } from "../replace-in-file.js";
import { testContext } from "../test-context.js";
import { exactCases } from "./corpus/exact.js";
import { failureCases } from "./corpus/failures.js";
import { lineEndingCases } from "./corpus/line-endings.js";
import { lineNumberCases } from "./corpus/line-numbers.js";
import { markerCases } from "./corpus/markers.js";
import type { EditCase } from "./corpus/types.js";
import { whitespaceCases } from "./corpus/whitespace.js";
import { describeFailure } from "./failure-report.js";
import { applyDiff, StreamingDiffApplier, type ApplyResult } from "./streaming-applier.js";

const corpus: EditCase[] = [...exactCases, ...whitespaceCases, ...lineEndingCases, ...markerCases, ...failureCases, ...lineNumberCases];
/** A time no edit could produce, so a rewritten file shows up as a changed mtime. */
const PAST = new Date("2001-02-03T04:05:06Z");

function outcome(result: ApplyResult): { content: string } | { error: string } {
  return result.ok ? { content: result.content } : { error: describeFailure("file.txt", result.source, result.failure) };
}

function streamed(file: string, diff: string): ApplyResult {
  const applier = new StreamingDiffApplier(file);
  for (const char of diff) applier.push(char);
  return applier.finish();
}

async function runTool(c: EditCase) {
  const ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-corpus-")));
  try {
    const file = path.join(ws, "file.txt");
    await writeFile(file, c.file, "utf8");
    await utimes(file, PAST, PAST);
    const input = replaceInFileTool.parameters.parse({ path: "file.txt", diff: c.diff });
    const result = await replaceInFileTool.execute(input, testContext(ws));
    return { result, bytes: await readFile(file), mtimeMs: (await stat(file)).mtimeMs };
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
}

describe("edit corpus", () => {
  it("holds at least 60 cases, each named once", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
    expect(new Set(corpus.map((c) => c.name)).size).toBe(corpus.length);
  });

  it.each(corpus)("$name", async (c) => {
    const engine = applyDiff(c.file, c.diff);
    // Streaming one character at a time must end exactly where one push does.
    expect(outcome(streamed(c.file, c.diff))).toEqual(outcome(engine));

    const { result, bytes, mtimeMs } = await runTool(c);
    const text = typeof result.content === "string" ? result.content : "";
    if (typeof c.expect === "string") {
      expect(engine.ok ? engine.content : outcome(engine)).toBe(c.expect);
      expect(result.isError, text).toBeUndefined();
      expect(bytes.toString("utf8")).toBe(c.expect);
      if (c.expect === c.file) {
        expect(text).toMatch(/^No changes/);
        expect(mtimeMs).toBe(PAST.getTime());
      }
      return;
    }
    expect(engine.ok).toBe(false);
    expect(result.isError).toBe(true);
    for (const wanted of c.expect.error) {
      if (typeof wanted === "string") expect(text).toContain(wanted);
      else expect(text).toMatch(wanted);
    }
    // Refused edits leave the file alone: same bytes, never rewritten.
    expect(bytes.equals(Buffer.from(c.file, "utf8"))).toBe(true);
    expect(mtimeMs).toBe(PAST.getTime());
  });
});
