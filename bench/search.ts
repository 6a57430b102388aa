/**
 * search_files against ripgrep run directly with the same flags, on a generated tree of 50,000
 * source-like files (built once, cached under .bench-tmp/). The tool adds process plumbing,
 * JSON parsing, the .cairnignore check of every file and formatting; the goal is ≤ 1.2× rg alone.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { searchFilesTool } from "../packages/core/src/tools/search-files.js";
import { ripgrepBinary } from "../packages/core/src/tools/search/ripgrep.js";
import { ripgrepArgs } from "../packages/core/src/tools/search/search-args.js";
import { testContext } from "../packages/core/src/tools/test-context.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";
import { rng } from "./rng.js";

const FILES = 50_000;
/** Bump when the generator changes, so a stale cached tree is rebuilt. */
const TREE_VERSION = 1;
const TREE = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", ".bench-tmp", `search-tree-v${TREE_VERSION}`);
const RUNS = 11;
const GOAL_RATIO = 1.2;
/** Written into this many files only: the rare literal. */
const RARE = "ZEPHYR_QUOKKA_7731";
const RARE_FILES = 5;

type Query = { name: string; regex: string; file_pattern?: string };

const QUERIES: Query[] = [
  { name: `rare literal (${RARE_FILES} files)`, regex: RARE },
  { name: "common word, cap hit", regex: "cache" },
  { name: "regex + file_pattern *.py", regex: "def handle_(user|order|session)_(stream|batch)\\(", file_pattern: "*.py" },
];

const NOUNS =
  "user order invoice session token request response payload record account report queue worker job event message channel buffer stream batch config route schema index entry".split(
    " ",
  );
const VERBS = "load save parse render validate fetch build merge apply resolve emit flush encode decode compute".split(" ");

function sourceFile(random: () => number, kind: "ts" | "py" | "md"): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const int = (n: number): number => Math.floor(random() * n);
  const noun = () => pick(NOUNS);
  const cap = (s: string) => `${s[0]?.toUpperCase() ?? ""}${s.slice(1)}`;
  const lines: string[] = [];
  if (kind === "md") {
    lines.push(`# ${cap(noun())} ${noun()} notes`, "");
    for (let p = 0; p < 4 + int(6); p += 1) {
      lines.push(Array.from({ length: 8 + int(12) }, () => (random() < 0.5 ? noun() : pick(VERBS))).join(" ") + ".", "");
    }
    return lines.join("\n");
  }
  if (kind === "py") {
    lines.push(`from .${noun()} import ${cap(noun())}${cap(noun())}`, "", `class ${cap(noun())}Handler:`);
    for (let f = 0; f < 3 + int(5); f += 1) {
      const mode = random() < 0.1 ? pick(["stream", "batch"]) : pick(["sync", "item", "once"]);
      lines.push(`    def handle_${noun()}_${mode}(self, ${noun()}, limit=${int(100)}):`);
      lines.push(`        value = self.${noun()}_${random() < 0.05 ? "cache" : "store"}.get(${noun()}.id)`);
      lines.push(`        if value is None:`, `            return self.${pick(VERBS)}_${noun()}(${noun()})`);
      lines.push(`        return value`, "");
    }
    return lines.join("\n");
  }
  lines.push(`import { ${cap(noun())}${cap(noun())} } from "../${noun()}/${noun()}.js";`, "");
  lines.push(`export class ${cap(noun())}Service {`);
  lines.push(`  private readonly ${random() < 0.2 ? "cache" : "items"} = new Map<string, ${cap(noun())}>();`, "");
  for (let m = 0; m < 3 + int(5); m += 1) {
    lines.push(`  async ${pick(VERBS)}${cap(noun())}(${noun()}: ${cap(noun())}, limit = ${int(100)}): Promise<${cap(noun())}> {`);
    lines.push(`    const ${noun()} = await this.${pick(VERBS)}${cap(noun())}(${noun()}.id, limit);`);
    lines.push(`    if (!${noun()}) throw new Error("${noun()} ${int(1000)} not found");`);
    lines.push(`    return this.${pick(VERBS)}${cap(noun())}(${noun()});`, "  }", "");
  }
  lines.push("}", "");
  return lines.join("\n");
}

/** 10 packages × 10 modules × 10 folders × 50 files, with a .gitignore and a .cairnignore at the root. */
async function ensureTree(): Promise<void> {
  const marker = path.join(TREE, ".complete");
  if (existsSync(marker)) return;
  console.error(`  generating ${FILES.toLocaleString("en-US")} files under ${TREE} (once)...`);
  await rm(TREE, { recursive: true, force: true });
  const random = rng(42);
  const rareAt = new Set(Array.from({ length: RARE_FILES }, (_, i) => Math.floor(((i + 0.5) * FILES) / RARE_FILES)));
  const jobs: Array<{ file: string; text: string }> = [];
  let n = 0;
  for (let p = 0; p < 10; p += 1) {
    for (let m = 0; m < 10; m += 1) {
      for (let d = 0; d < 10; d += 1) {
        const dir = path.join(TREE, `pkg${p}`, "src", `module${m}`, `part${d}`);
        for (let f = 0; f < 50; f += 1, n += 1) {
          const roll = random();
          const kind = roll < 0.7 ? "ts" : roll < 0.9 ? "py" : "md";
          let text = sourceFile(random, kind);
          if (rareAt.has(n)) text += `\n// ${RARE}: the needle\n`;
          jobs.push({ file: path.join(dir, `file${f}.${kind}`), text });
        }
      }
    }
  }
  const dirs = new Set(jobs.map((job) => path.dirname(job.file)));
  for (const dir of dirs) await mkdir(dir, { recursive: true });
  for (let i = 0; i < jobs.length; i += 256) {
    await Promise.all(jobs.slice(i, i + 256).map((job) => writeFile(job.file, job.text)));
  }
  await writeFile(path.join(TREE, ".gitignore"), "*.log\n/tmp/\n");
  await writeFile(path.join(TREE, ".cairnignore"), "secrets/\n*.pem\n");
  await writeFile(marker, `${FILES}\n`);
}

/** rg with the tool's own flags, its output read to the end and split into lines (no parsing). */
function direct(binary: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: TREE, stdio: ["ignore", "pipe", "ignore"] });
    let lines = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    });
    child.on("error", reject);
    child.on("close", () => resolve(lines));
  });
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const fmtMs = (ms: number): string => (ms >= 100 ? Math.round(ms).toLocaleString("en-US") : ms.toFixed(1));

export async function run(): Promise<BenchRow[]> {
  await ensureTree();
  const binary = await ripgrepBinary();
  if (binary === undefined) throw new Error("bench search: ripgrep is not installed (see search_files' error message).");
  const ctx = testContext(TREE);
  const rows: BenchRow[] = [];
  for (const query of QUERIES) {
    const input = searchFilesTool.parameters.parse({ path: ".", ...query });
    const args = ripgrepArgs({
      regex: query.regex,
      root: ".",
      filePattern: query.file_pattern,
      ignoreFiles: ctx.ignore.files.map((name) => path.join(TREE, name)),
    });
    const tool = async () => {
      const result = await searchFilesTool.execute(input, ctx);
      if (result.isError) throw new Error(`bench search: ${String(result.content)}`);
      return result.content as string;
    };
    const first = await tool(); // warm-up: page cache, binary, JIT
    await direct(binary, args);
    const toolMs: number[] = [];
    const directMs: number[] = [];
    let directLines = 0;
    const timeDirect = async () => directMs.push(await time(async () => (directLines = await direct(binary, args))));
    for (let r = 0; r < RUNS; r += 1) {
      // Alternate which goes first, so neither always runs right after the other's I/O.
      if (r % 2 === 1) await timeDirect();
      toolMs.push(await time(tool));
      if (r % 2 === 0) await timeDirect();
    }
    const ms = median(toolMs);
    const base = median(directMs);
    const ratio = ms / base;
    const summary = first.split("\n")[0] ?? "";
    console.error(`  ${query.name}: tool ${fmtMs(ms)} ms, rg ${fmtMs(base)} ms — ${summary}`);
    rows.push({
      bench: "search",
      case: `${FILES.toLocaleString("en-US")} files, ${query.name}: ${summary.replace(/\. Narrow.*$/, "]")}`,
      measure: `search_files ${fmtMs(ms)} ms`,
      baseline: `rg --json directly ${fmtMs(base)} ms (${directLines.toLocaleString("en-US")} lines out)`,
      ratio: `${ratio.toFixed(2)}×`,
      goal: `≤ ${GOAL_RATIO}×`,
      pass: ratio <= GOAL_RATIO,
    });
  }
  return rows;
}
