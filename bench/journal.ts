/**
 * What a task's journal and its checkpoints cost around the work itself (issue 26), real CLI
 * against the scripted model, default settings (checkpoints, sandbox, rules on):
 *
 * - The fsyncs and renames of a one-turn task's own files (CAIRN_HOME/tasks), counted, not timed,
 *   by test/support/fs-counter (a preload wrapping node:fs), against the count before they were
 *   batched per step (4 fsyncs and 8 renames at commit 4fcf446, counted by strace).
 * - That task's CPU (GNU time: the process and its children), interleaved with `node -e 0`.
 * - In the 100,000-file workspace of checkpoints.ts with a fresh CAIRN_HOME, the time from the
 *   model's answer to the process's exit, beside the same with checkpoints off: a task that changed
 *   nothing leaves the first checkpoint's index to a detached git. That git is waited for before the
 *   next run, so no measurement shares the machine with it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModelServer } from "../test/support/scripted-model-server.js";
import { ensureWorkspace, WORKSPACE as BIG_WORKSPACE } from "./checkpoints.js";
import type { BenchRow } from "./run.js";
import { interleaved, measured } from "./startup.js";
import { median } from "./stats.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cairnBin = process.env.CAIRN_BENCH_BIN ?? path.join(ROOT, "packages/cli/bin/cairn.js");
const counter = path.join(ROOT, "test/support/fs-counter/count.mjs");
/** Another build to run side by side (the one before the batching), e.g. a copy of the tree at 4fcf446 built with `npm run build`. */
const beforeBin = process.env.CAIRN_BENCH_BEFORE_BIN;
const CPU_RUNS = 7;
const COUNT_RUNS = 5;
const EXIT_RUNS = 2;
/** Counted (strace, the main process) on the build before the batching, commit 4fcf446. */
const BEFORE = { fsyncs: 4, renames: 8, ms: Number.NaN };

const done = { content: [{ type: "tool_use" as const, name: "attempt_completion", input: { result: "Done." } }] };
const taskArgs = (url: string, cwd: string) => ["run", "--provider", "anthropic", "--base-url", url, "--cwd", cwd, "--json", "Say you are done."];
const ms = (value: number) => `${Math.round(value)} ms`;

function tempHome(prefix: string, checkpoints = true): string {
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  if (!checkpoints) writeFileSync(path.join(home, "settings.json"), JSON.stringify({ checkpoints: false }));
  return home;
}

/** One one-turn task under the fs counter: its fsyncs and renames of task files. */
async function counted(bin: string, url: string, ws: string): Promise<{ fsyncs: number; renames: number; ms: number }> {
  const home = tempHome("cairn-bench-journal-");
  const report = path.join(home, "fs-count.txt");
  try {
    await measured([process.execPath, `--import=${counter}`, bin, ...taskArgs(url, ws)], { env: { ...process.env, CAIRN_HOME: home, ANTHROPIC_API_KEY: "k", CAIRN_COUNT_FS: report }, cwd: ws });
    const lines = readFileSync(report, "utf8").split("\n").filter((l) => l.includes(`${path.sep}tasks${path.sep}`));
    // Each line ends with the call's wall time: what it held the main thread.
    const ms = lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
    return { fsyncs: lines.filter((l) => l.startsWith("fsync ")).length, renames: lines.filter((l) => l.startsWith("rename ")).length, ms };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The one-turn task in the big workspace, fresh CAIRN_HOME: from the model's answer (the scripted
 * server sending it) to the process's exit, and the part of that after the `result` line.
 */
async function answerToExit(checkpoints: boolean): Promise<{ exitMs: number; afterResultMs: number }> {
  const home = tempHome("cairn-bench-exit-", checkpoints);
  let answeredAt = Number.NaN;
  const server = await startScriptedModelServer({
    responder: () => {
      answeredAt = performance.now();
      return done;
    },
  });
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cairnBin, ...taskArgs(server.url, BIG_WORKSPACE)], { cwd: BIG_WORKSPACE, env: { ...process.env, CAIRN_HOME: home, ANTHROPIC_API_KEY: "k" }, stdio: ["ignore", "pipe", "pipe"] });
      let resultAt: number | undefined;
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        stdout += d;
        if (resultAt === undefined && /"type":"result"/.test(stdout)) resultAt = performance.now();
      });
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code) => {
        const exitedAt = performance.now();
        if (code !== 0 || resultAt === undefined) reject(new Error(`one-turn task in the big workspace failed (${code}): ${stderr.slice(-500)}`));
        else resolve({ exitMs: exitedAt - answeredAt, afterResultMs: exitedAt - resultAt });
      });
    });
  } finally {
    await server.close();
    await indexerGone(home);
    // A detached packing may still write into the home: retry its removal.
    rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  }
}

/** Waits (up to 10 minutes) for the detached git a run left building the first index (named in the store's marker) to end; a zombie has ended. */
async function indexerGone(home: string): Promise<void> {
  const stores = path.join(home, "checkpoints");
  let pid: number | undefined;
  try {
    for (const store of readdirSync(stores)) {
      pid ??= (JSON.parse(readFileSync(path.join(stores, store, "cairn-first-index.json"), "utf8")) as { pid: number }).pid;
    }
  } catch {
    // No store or no marker: nothing runs.
  }
  const running = () => {
    try {
      return !/^\d+ \(.*\) [ZX] /s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  for (const deadline = Date.now() + 600_000; pid !== undefined && running() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 200));
}

export async function run(): Promise<BenchRow[]> {
  const ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-journal-ws-")));
  writeFileSync(path.join(ws, "README.md"), "# A small project\n");
  const server = await startScriptedModelServer({ responder: () => done });
  const home = tempHome("cairn-bench-journal-cpu-");
  try {
    const rows: BenchRow[] = [];
    // Counts are the same every run; the wall time of the calls is not (the disk is shared): the median of runs interleaved with the older build's.
    const after: Array<{ fsyncs: number; renames: number; ms: number }> = [];
    const older: Array<{ fsyncs: number; renames: number; ms: number }> = [];
    for (let i = 0; i < COUNT_RUNS; i++) {
      after.push(await counted(cairnBin, server.url, ws));
      if (beforeBin) older.push(await counted(beforeBin, server.url, ws));
    }
    const medianOf = (runs: typeof after) => ({ fsyncs: median(runs.map((r) => r.fsyncs)), renames: median(runs.map((r) => r.renames)), ms: median(runs.map((r) => r.ms)) });
    const writes = medianOf(after);
    const before = beforeBin ? medianOf(older) : BEFORE;
    rows.push({
      bench: "journal",
      case: `one-turn task: fsyncs and renames of its task files (counted; their wall time beside, median of ${COUNT_RUNS})`,
      measure: `${writes.fsyncs} fsyncs, ${writes.renames} renames (${writes.ms.toFixed(1)} ms in them)`,
      baseline: `before batching per step${beforeBin ? " (CAIRN_BENCH_BEFORE_BIN)" : " (4fcf446)"}: ${before.fsyncs} fsyncs, ${before.renames} renames${beforeBin ? ` (${before.ms.toFixed(1)} ms)` : ""}`,
      ratio: `${(writes.fsyncs / before.fsyncs).toFixed(2)}× fsyncs, ${(writes.renames / before.renames).toFixed(2)}× renames`,
      goal: "fewer, each step's state and the result still fsynced",
      pass: writes.fsyncs < before.fsyncs && writes.renames < before.renames,
    });

    const env = { ...process.env, CAIRN_HOME: home, ANTHROPIC_API_KEY: "k" };
    const cpu = await interleaved(
      {
        floor: () => measured([process.execPath, "-e", "0"], { env }),
        task: () => measured([process.execPath, cairnBin, ...taskArgs(server.url, ws)], { env, cwd: ws }),
        ...(beforeBin ? { before: () => measured([process.execPath, beforeBin, ...taskArgs(server.url, ws)], { env, cwd: ws }) } : {}),
      },
      CPU_RUNS,
    );
    rows.push({
      bench: "journal",
      case: `one-turn task, CPU with its children (median of ${CPU_RUNS}, interleaved)`,
      measure: ms(cpu.task!.cpuMs),
      baseline: `node -e 0: ${ms(cpu.floor!.cpuMs)}${cpu.before ? `; before batching: ${ms(cpu.before.cpuMs)}` : ""}`,
      ratio: cpu.before ? `${(cpu.task!.cpuMs / cpu.before.cpuMs).toFixed(2)}× before's` : `${(cpu.task!.cpuMs / cpu.floor!.cpuMs).toFixed(1)}× node's`,
      goal: "≤ 250 ms",
      pass: cpu.task!.cpuMs <= 250,
    });

    await ensureWorkspace();
    const on: Array<{ exitMs: number; afterResultMs: number }> = [];
    const off: Array<{ exitMs: number; afterResultMs: number }> = [];
    for (let i = 0; i < EXIT_RUNS; i++) {
      on.push(await answerToExit(true));
      off.push(await answerToExit(false));
    }
    const exit = median(on.map((m) => m.exitMs));
    rows.push({
      bench: "journal",
      case: `one-turn task, 100,000-file workspace, fresh CAIRN_HOME: the model's answer to the process's exit (median of ${EXIT_RUNS})`,
      measure: `${ms(exit)} (after the result line: ${ms(median(on.map((m) => m.afterResultMs)))})`,
      baseline: `checkpoints off: ${ms(median(off.map((m) => m.exitMs)))}`,
      ratio: `${(exit / median(off.map((m) => m.exitMs))).toFixed(1)}×`,
      goal: "≤ 1 s",
      pass: exit <= 1_000,
    });
    return rows;
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
}
