/**
 * Checkpoints on a 100,000-file workspace: the shadow repository (`Checkpoints.create`) against a
 * plain `git add -A && git commit` in an ordinary repository of the same tree. Measures the first
 * checkpoint, a checkpoint after a one-file change (median of 5) and the disk each one-file change
 * costs once its objects are packed (Checkpoints packs in the background after create() returns;
 * the baseline keeps loose objects, auto-gc off). The workspace is generated once and cached under
 * .bench-tmp/checkpoints-100k/.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Checkpoints } from "../packages/core/src/checkpoints/index.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CACHE = path.join(ROOT, ".bench-tmp", "checkpoints-100k");
export const WORKSPACE = path.join(CACHE, "workspace");
const FOLDERS = 10; // 10 × 10 × 10 folders of 100 files = 100,000 files
const FILES_PER_FOLDER = 100;
const SAMPLES = 5;
const GOAL_ONE_FILE_MS = 300;
const GOAL_GROWTH_KB = 50;
const CHANGED_FILE = "pkg3/mod4/part5/file7.ts";

const log = (text: string): void => {
  process.stderr.write(`  ${text}\n`);
};

/** Small deterministic source files in nested folders, plus an ignored node_modules. */
export async function ensureWorkspace(): Promise<void> {
  const marker = path.join(CACHE, "complete");
  if (existsSync(marker)) return;
  log(`generating ${(FOLDERS ** 3 * FILES_PER_FOLDER).toLocaleString("en-US")} files in ${path.relative(ROOT, WORKSPACE)} (once)...`);
  await rm(WORKSPACE, { recursive: true, force: true });
  let n = 0;
  for (let a = 0; a < FOLDERS; a++) {
    for (let b = 0; b < FOLDERS; b++) {
      for (let c = 0; c < FOLDERS; c++) {
        const dir = path.join(WORKSPACE, `pkg${a}`, `mod${b}`, `part${c}`);
        await mkdir(dir, { recursive: true });
        const writes: Promise<void>[] = [];
        for (let f = 0; f < FILES_PER_FOLDER; f++, n++) {
          const body = `export const value${n} = ${n};\n// ${"lorem ipsum ".repeat((n * 7) % 40)}\nexport function f${n}(x: number) {\n  return x + ${n};\n}\n`;
          writes.push(writeFile(path.join(dir, `file${f}.ts`), body));
        }
        await Promise.all(writes);
      }
    }
  }
  await writeFile(path.join(WORKSPACE, ".gitignore"), "node_modules/\n");
  for (let i = 0; i < 100; i++) {
    await mkdir(path.join(WORKSPACE, "node_modules", `dep${i}`), { recursive: true });
    await writeFile(path.join(WORKSPACE, "node_modules", `dep${i}`, "index.js"), `module.exports = ${i};\n`);
  }
  await writeFile(marker, new Date().toISOString());
}

/** Bytes on disk (what `du` counts: allocated blocks, not apparent size). */
async function diskUsage(folder: string): Promise<number> {
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const stats = await lstat(full).catch(() => undefined); // git may delete a temp file meanwhile
      total += (stats?.blocks ?? 0) * 512;
      if (entry.isDirectory()) await walk(full).catch(() => {});
    }
  };
  await walk(folder);
  return total;
}

async function timed(job: () => unknown): Promise<number> {
  const start = performance.now();
  await job();
  return performance.now() - start;
}

/**
 * A plain repository (default settings, no user config) whose git dir sits outside the cached tree.
 * Auto-gc is off: after the first commit it would repack 100k loose objects in the background and
 * make the timings and sizes below depend on when that finishes.
 */
function baselineGit(gitDir: string, home: string) {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("GIT_")) env[key] = value;
  Object.assign(env, {
    GIT_DIR: gitDir,
    GIT_WORK_TREE: WORKSPACE,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.com",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.com",
  });
  return (...args: string[]) => execFileSync("git", args, { cwd: WORKSPACE, env, stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 28 });
}

type Measures = { firstMs: number; settleMs: number; oneFileMs: number; growthBytes: number; sizeAfterFirst: number };

async function measure(
  label: string,
  storeDir: string,
  first: () => Promise<unknown>,
  oneFile: () => Promise<unknown>,
  settle: () => Promise<unknown> = async () => {},
): Promise<Measures> {
  const original = await readFile(path.join(WORKSPACE, CHANGED_FILE), "utf8");
  log(`${label}: first checkpoint...`);
  const firstMs = await timed(first);
  const settleMs = await timed(settle);
  const sizeAfterFirst = await diskUsage(storeDir);
  log(`${label}: first ${(firstMs / 1000).toFixed(2)} s, store ${(sizeAfterFirst / 1e6).toFixed(1)} MB; one-file changes...`);
  const times: number[] = [];
  const growth: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    await writeFile(path.join(WORKSPACE, CHANGED_FILE), `${original}// change ${label} ${i} ${Date.now()}\n`);
    const before = await diskUsage(storeDir);
    times.push(await timed(oneFile));
    await settle();
    growth.push((await diskUsage(storeDir)) - before);
  }
  await writeFile(path.join(WORKSPACE, CHANGED_FILE), original);
  log(`${label}: one-file ${times.map((t) => t.toFixed(0)).join(", ")} ms; growth ${growth.map((g) => (g / 1024).toFixed(0)).join(", ")} KB`);
  return { firstMs, settleMs, oneFileMs: median(times), growthBytes: median(growth), sizeAfterFirst };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const times = (ours: number, base: number): string => `${(ours / base).toFixed(2)}×`;

export async function run(): Promise<BenchRow[]> {
  await ensureWorkspace();
  const runDir = path.join(CACHE, `run-${process.pid}`);
  await rm(runDir, { recursive: true, force: true });
  await mkdir(path.join(runDir, "home"), { recursive: true });
  try {
    // Warm the page cache so that neither side pays for a cold disk.
    await diskUsage(WORKSPACE);

    const baseDir = path.join(runDir, "baseline.git");
    const git = baselineGit(baseDir, path.join(runDir, "home"));
    git("init", "-q");
    git("config", "gc.auto", "0");
    const base = await measure(
      "baseline git",
      baseDir,
      async () => {
        git("add", "-A");
        git("commit", "-q", "-m", "first");
      },
      async () => {
        git("add", "-A");
        git("commit", "-q", "-m", "one file");
      },
    );

    const checkpointsDir = path.join(runDir, "checkpoints");
    let checkpoints: Checkpoints | undefined;
    const ours = await measure(
      "checkpoints",
      checkpointsDir,
      async () => {
        checkpoints = await Checkpoints.open({ workspace: WORKSPACE, baseDir: checkpointsDir });
        await checkpoints.create("first");
      },
      () => checkpoints!.create("one file"),
      // Each checkpoint's loose objects are packed in the background after create() returns.
      () => checkpoints!.idle(),
    );
    const workspaceSize = await diskUsage(WORKSPACE);

    return [
      {
        bench: "checkpoints",
        case: "first checkpoint of 100,000 files (open + create; then packing in the background)",
        measure: `${seconds(ours.firstMs)} (+ ${seconds(ours.settleMs)} packing)`,
        baseline: `git add -A && git commit ${seconds(base.firstMs)}`,
        ratio: times(ours.firstMs, base.firstMs),
      },
      {
        bench: "checkpoints",
        case: `checkpoint after a one-file change (median of ${SAMPLES})`,
        measure: `${ours.oneFileMs.toFixed(0)} ms`,
        baseline: `${base.oneFileMs.toFixed(0)} ms`,
        ratio: times(ours.oneFileMs, base.oneFileMs),
        goal: `≤ ${GOAL_ONE_FILE_MS} ms`,
        pass: ours.oneFileMs <= GOAL_ONE_FILE_MS,
      },
      {
        bench: "checkpoints",
        case: `disk growth per one-file change (median of ${SAMPLES}, du, after the background packing)`,
        measure: kb(ours.growthBytes),
        baseline: kb(base.growthBytes),
        ratio: times(ours.growthBytes, base.growthBytes),
        goal: `≤ ${GOAL_GROWTH_KB} KB`,
        pass: ours.growthBytes <= GOAL_GROWTH_KB * 1024,
      },
      {
        bench: "checkpoints",
        case: `store size after the first checkpoint, packed (workspace ${mb(workspaceSize)} on disk; baseline loose, auto-gc off)`,
        measure: mb(ours.sizeAfterFirst),
        baseline: mb(base.sizeAfterFirst),
        ratio: times(ours.sizeAfterFirst, base.sizeAfterFirst),
      },
    ];
  } finally {
    await rm(runDir, { recursive: true, force: true });
  }
}
