/**
 * The code outliner behind list_code_definition_names, on real code: the TypeScript and JavaScript
 * files of zod, @ai-sdk and vitest in node_modules (a fixed, sorted set), through the engine rather
 * than the 50-file-capped tool. Baseline: tree-sitter parsing alone, so the ratio is what the
 * definitions query and signature extraction add. Cold start (runtime + TypeScript grammar + query)
 * is timed in fresh processes.
 */
import { execFile } from "node:child_process";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { languagesForFile, loadLanguage, outlineFile } from "../packages/core/src/tools/code-outline/index.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ROOTS = ["zod", "@ai-sdk", "vitest"].map((name) => path.join(repo, "node_modules", name));
const EXTENSIONS = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"]);
/** The tool's own per-file limit. */
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 2_000;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;
const ROUNDS = 3;
const COLD_RUNS = 5;
/** A 50-file call (the tool's cap) should take at most half a second. */
const GOAL_FILES_PER_SECOND = 100;
/** First call of a session: under contention (load 7 on 2 cores) this measured 276 ms, quiet 75–150 ms. */
const GOAL_COLD_MS = 500;

type SourceFile = { name: string; text: string; bytes: number };

async function collectFiles(): Promise<SourceFile[]> {
  const paths: string[] = [];
  for (const root of ROOTS) {
    const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
    for (const entry of entries) {
      if (EXTENSIONS.has(path.extname(entry))) paths.push(path.join(root, entry));
    }
  }
  paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  const files: SourceFile[] = [];
  let total = 0;
  for (const file of paths) {
    if (files.length >= MAX_FILES) break;
    const info = await stat(file).catch(() => undefined);
    if (info === undefined || !info.isFile() || info.size > MAX_FILE_BYTES) continue;
    if (total + info.size > MAX_TOTAL_BYTES) break;
    total += info.size;
    files.push({ name: path.relative(repo, file), text: await readFile(file, "utf8"), bytes: info.size });
  }
  return files;
}

async function outlineAll(files: readonly SourceFile[]): Promise<{ ms: number; definitions: number; withErrors: number }> {
  let definitions = 0;
  let withErrors = 0;
  const started = performance.now();
  for (const file of files) {
    const outline = await outlineFile(file.name, file.text);
    definitions += outline?.entries.length ?? 0;
    if (outline?.hasErrors === true) withErrors += 1;
  }
  return { ms: performance.now() - started, definitions, withErrors };
}

async function parseAll(files: readonly SourceFile[]): Promise<number> {
  const started = performance.now();
  for (const file of files) {
    const [spec] = languagesForFile(file.name);
    if (spec === undefined) continue;
    const { parser } = await loadLanguage(spec);
    parser.parse(file.text)?.delete();
  }
  return performance.now() - started;
}

/** Loads the runtime and the TypeScript grammar in a fresh process and reports how long that took. */
async function coldStartMs(): Promise<number> {
  const engine = pathToFileURL(path.join(repo, "packages/core/src/tools/code-outline/index.ts")).href;
  const script = `
    const { languages, loadLanguage } = await import(${JSON.stringify(engine)});
    const started = performance.now();
    await loadLanguage(languages.typescript);
    console.log(performance.now() - started);
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: repo,
  });
  return Number(stdout.trim());
}

export async function run(): Promise<BenchRow[]> {
  const colds: number[] = [];
  for (let i = 0; i < COLD_RUNS; i += 1) colds.push(await coldStartMs());
  const cold = median(colds);

  const files = await collectFiles();
  const kb = files.reduce((sum, file) => sum + file.bytes, 0) / 1024;
  await outlineAll(files.slice(0, 50)); // load both grammars and warm the JIT

  const outlines: number[] = [];
  const parses: number[] = [];
  let last = { ms: 0, definitions: 0, withErrors: 0 };
  for (let round = 0; round < ROUNDS; round += 1) {
    last = await outlineAll(files);
    outlines.push(last.ms);
    parses.push(await parseAll(files));
  }
  const ms = median(outlines);
  const parseMs = median(parses);
  const filesPerSecond = (files.length / ms) * 1000;

  return [
    {
      bench: "outline",
      case: `cold start: tree-sitter runtime + TypeScript grammar + query (median of ${COLD_RUNS} fresh processes)`,
      measure: `${cold.toFixed(0)} ms`,
      goal: `≤ ${GOAL_COLD_MS} ms`,
      pass: cold <= GOAL_COLD_MS,
    },
    {
      bench: "outline",
      case: `${files.length.toLocaleString("en-US")} .ts/.js files of zod, @ai-sdk, vitest (${(kb / 1024).toFixed(1)} MB; ${last.definitions.toLocaleString("en-US")} definitions, ${last.withErrors} files with syntax errors)`,
      measure: `${filesPerSecond.toFixed(0)} files/s, ${((kb / ms) * 1000).toFixed(0)} KB/s (${(ms / 1000).toFixed(2)} s)`,
      baseline: `parse only ${((files.length / parseMs) * 1000).toFixed(0)} files/s (${(parseMs / 1000).toFixed(2)} s)`,
      ratio: `${(ms / parseMs).toFixed(2)}× the parse time`,
      goal: `≥ ${GOAL_FILES_PER_SECOND} files/s`,
      pass: filesPerSecond >= GOAL_FILES_PER_SECOND,
    },
  ];
}
