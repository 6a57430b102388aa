/**
 * replace_in_file: time per edit (the whole tool: read, match, write atomically, describe) on generated
 * 10,000 / 20,000 / 40,000-line files with 10 blocks spread through each, 6 of them whitespace-drifted;
 * and the streaming applier fed diffs of growing size in 1–10 char chunks. Both must grow linearly.
 * Sizes are timed in interleaved rounds after warm-up rounds; each figure is the best of its runs
 * (on a shared machine other processes only ever add time).
 */
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { StreamingDiffApplier, applyDiff } from "../packages/core/src/tools/edit/streaming-applier.js";
import { replaceInFileTool } from "../packages/core/src/tools/replace-in-file.js";
import { testContext } from "../packages/core/src/tools/test-context.js";
import type { BenchRow } from "./run.js";

const SIZES = [10_000, 20_000, 40_000];
const BLOCKS = 10;
const RUNS = 15;
/** Streaming runs are short (tens of ms), so more of them are needed for a steady best. */
const STREAM_RUNS = 40;
const WARMUP = 5;
const STREAM_KB = [50, 400];
const LINES_PER_FUNCTION = 9;

/** A TypeScript-like file of small functions, each with unique names so every block can be unique. */
function generateFile(lines: number): string {
  const out: string[] = [];
  for (let f = 0; out.length < lines; f++) out.push(...functionLines(f));
  return `${out.slice(0, lines).join("\n")}\n`;
}

function functionLines(f: number): string[] {
  return [
    `export function handler${f}(input: Input): Output {`,
    `  const value${f} = compute(input, ${f});`,
    `  if (value${f} > LIMIT) {`,
    `    log("handler ${f} over limit", value${f});`,
    `    return { ok: false, code: ${f} };`,
    `  }`,
    `  return { ok: true, value: value${f} };`,
    `}`,
    ``,
  ];
}

type Drift = "exact" | "trailing spaces" | "indentation" | "inner whitespace";
const DRIFTS: Drift[] = ["exact", "trailing spaces", "exact", "indentation", "inner whitespace", "exact", "trailing spaces", "indentation", "exact", "inner whitespace"];

/** One block per tenth of the file; the SEARCH is written with the given drift from the file's text. */
function generateDiff(lines: number): string {
  const functions = Math.floor(lines / LINES_PER_FUNCTION);
  return DRIFTS.slice(0, BLOCKS)
    .map((drift, k) => {
      const f = Math.floor(((k + 0.5) * functions) / BLOCKS);
      const search = functionLines(f).slice(2, 5);
      const replace = [search[0] ?? "", `    log("handler ${f} edited", value${f});`, `    return { ok: false, code: -${f} };`];
      const drifted = search.map((line) => {
        if (drift === "trailing spaces") return `${line}   `;
        if (drift === "indentation") return line.trimStart();
        if (drift === "inner whitespace") return line.replaceAll(" ", "  ");
        return line;
      });
      const replaced = drift === "indentation" ? replace.map((l) => l.trimStart()) : replace;
      return ["------- SEARCH", ...drifted, "=======", ...replaced, "+++++++ REPLACE"].join("\n");
    })
    .join("\n");
}

/** The best of the runs: on a shared machine other processes only ever add time, so the minimum is the steadiest estimate. */
function best(values: number[]): number {
  return values.length === 0 ? Number.NaN : Math.min(...values);
}

type ToolCase = { lines: number; original: string; diff: string; file: string };

/** Sizes are timed in interleaved rounds after warm-up rounds, so JIT tiering and machine load hit them alike. */
async function timeTool(ws: string): Promise<Array<{ lines: number; toolMs: number; engineMs: number }>> {
  const cases: ToolCase[] = SIZES.map((lines) => ({
    lines,
    original: generateFile(lines),
    diff: generateDiff(lines),
    file: path.join(ws, `f${lines}.ts`),
  }));
  for (const c of cases) {
    const engine = applyDiff(c.original, c.diff);
    const edited = engine.ok ? engine.content.split("\n").filter((l) => l.includes(" edited")).length : 0;
    if (edited !== BLOCKS) throw new Error(`bench replace: the generated diff did not apply to ${c.lines} lines (${edited} blocks); run the edit tests.`);
  }
  const ctx = testContext(ws);
  const toolTimes = cases.map((): number[] => []);
  const engineTimes = cases.map((): number[] => []);
  for (let round = 0; round < WARMUP + RUNS; round++) {
    for (const [i, c] of cases.entries()) {
      await writeFile(c.file, c.original);
      const input = replaceInFileTool.parameters.parse({ path: c.file, diff: c.diff });
      const started = performance.now();
      const result = await replaceInFileTool.execute(input, ctx);
      const elapsed = performance.now() - started;
      if (result.isError) throw new Error(`bench replace: the edit failed: ${String(result.content).slice(0, 500)}`);
      const engineStarted = performance.now();
      applyDiff(c.original, c.diff);
      const engineElapsed = performance.now() - engineStarted;
      if (round >= WARMUP) {
        toolTimes[i]?.push(elapsed);
        engineTimes[i]?.push(engineElapsed);
      }
    }
  }
  return cases.map((c, i) => ({ lines: c.lines, toolMs: best(toolTimes[i] ?? []), engineMs: best(engineTimes[i] ?? []) }));
}

type StreamCase = { kb: number; original: string; diff: string; ends: number[]; blocks: number };

/** A diff of about `kb` KB (many small blocks) against a matching file, cut into seeded 1–10 char chunks. */
function streamCase(kb: number): StreamCase {
  const lines: string[] = [];
  const blocks: string[] = [];
  let size = 0;
  for (let i = 0; size < kb * 1024; i++) {
    const line = `  entry${i}: compute(${i}, "value ${i}"),`;
    lines.push(line);
    if (i % 2 === 0) {
      const block = `------- SEARCH\n${line}\n=======\n${line.replace("compute", "recompute")}\n+++++++ REPLACE\n`;
      blocks.push(block);
      size += block.length;
    }
  }
  const diff = blocks.join("");
  let seed = 7;
  const ends: number[] = [];
  for (let at = 0; at < diff.length; ) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    at = Math.min(diff.length, at + 1 + (seed % 10));
    ends.push(at);
  }
  return { kb, original: `${lines.join("\n")}\n`, diff, ends, blocks: blocks.length };
}

function streamOnce(c: StreamCase): number {
  const started = performance.now();
  const applier = new StreamingDiffApplier(c.original, { previews: false });
  let from = 0;
  for (const end of c.ends) {
    applier.push(c.diff.slice(from, end));
    from = end;
  }
  const result = applier.finish();
  const elapsed = performance.now() - started;
  if (!result.ok) throw new Error("bench replace: the streamed diff did not apply; run the streaming tests.");
  return elapsed;
}

function timeStreaming(): Array<StreamCase & { nsPerChar: number }> {
  const cases = STREAM_KB.map(streamCase);
  const times = cases.map((): number[] => []);
  for (let round = 0; round < WARMUP + STREAM_RUNS; round++) {
    for (const [i, c] of cases.entries()) {
      const ms = streamOnce(c);
      if (round >= WARMUP) times[i]?.push(ms);
    }
  }
  return cases.map((c, i) => ({ ...c, nsPerChar: (best(times[i] ?? []) * 1e6) / c.diff.length }));
}

const fmt = (n: number): string => n.toLocaleString("en-US");

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // Streaming first, on a fresh heap: the tool cases leave megabytes behind whose collection would be billed to it.
  const streamed = timeStreaming();
  const ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-bench-replace-")));
  let timed: Awaited<ReturnType<typeof timeTool>>;
  try {
    timed = await timeTool(ws);
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
  for (const { lines, toolMs, engineMs } of timed) {
    console.error(`  ${fmt(lines)} lines: ${toolMs.toFixed(2)} ms per edit`);
    rows.push({
      bench: "replace_in_file",
      case: `${fmt(lines)} lines, ${BLOCKS} blocks (6 whitespace-drifted)`,
      measure: `${toolMs.toFixed(1)} ms per edit (of which matching + rendering in memory ${engineMs.toFixed(1)} ms), best of ${RUNS}`,
    });
  }
  const perLine = timed.map((t) => t.toolMs / t.lines);
  const growth = (perLine[perLine.length - 1] ?? Number.NaN) / (perLine[0] ?? Number.NaN);
  rows.push({
    bench: "replace_in_file",
    case: `linear growth: ms/line at ${fmt(SIZES[SIZES.length - 1] ?? 0)} ÷ at ${fmt(SIZES[0] ?? 0)} lines`,
    measure: `${growth.toFixed(2)}×`,
    goal: "≤ 2× per line",
    pass: growth <= 2,
  });

  for (const s of streamed) {
    rows.push({
      bench: "replace_in_file",
      case: `streaming applier: ${s.kb} KB diff (${fmt(s.blocks)} blocks) in 1–10 char chunks`,
      measure: `${s.nsPerChar.toFixed(0)} ns/char, best of ${STREAM_RUNS}`,
    });
  }
  const streamGrowth = (streamed[streamed.length - 1]?.nsPerChar ?? Number.NaN) / (streamed[0]?.nsPerChar ?? Number.NaN);
  rows.push({
    bench: "replace_in_file",
    case: `streaming linear growth: ns/char at ${STREAM_KB[STREAM_KB.length - 1]} KB ÷ at ${STREAM_KB[0]} KB`,
    measure: `${streamGrowth.toFixed(2)}×`,
    goal: "≤ 2× per char",
    pass: streamGrowth <= 2,
  });
  return rows;
}
