/**
 * Parallel reads (issue 16): one reply of six read_file calls on large files (16 MB of text each),
 * each asking for 40 lines near the end, run through the real Task against the scripted model
 * server with toolExecution "parallel" against "sequential", interleaved, RUNS of each. The measure
 * is the reply's calls alone: from the first call's tool_call event to the last call's end. The
 * ratio is of the best runs (the least disturbed by other work on a shared machine); medians are
 * shown beside them.
 *
 * Why a 40-line range: that is how a model reads a file this size. A read without a range returns
 * the first 2000 lines (256 KB), and six of those in one reply overflow a 200k-token context (the
 * next turn compacts). Either way read_file streams the whole file to count its lines, so the
 * reads cost what reading 16 MB costs, not what the harness costs: a CPU profile of the sequential
 * run puts ~0.3-0.7 ms per call in the loop (events, scheduling) against ~4 ms (warm) to ~13 ms
 * (cold) in the read itself, of which ~1.3 ms is JS (the newline count) and the rest the kernel's
 * copy and the disk, on libuv's threads.
 *
 * Two cases: a cold page cache (each file's cached pages dropped before every run with dd's
 * iflag=nocache, as for a workspace opened for the first time or a slow disk), where the reads wait
 * on the disk; and a warm one, where they only wait on the CPU. Goal: ≤ 0.5× cold.
 *
 * Each case has a second row, the machine's own ratio: the same six files read in 1 MB chunks with
 * nothing else (no agent, no line count), one after another against all at once. Parallel reads
 * cannot beat it: on a 2-core machine shared with other work the warm reads are bound by copying
 * (~1.0× for the bytes alone), and a cold read already streams near the disk's bandwidth, so six at
 * once gain only what the device has left (~0.7× here). An agent ratio close to that row means the
 * reads overlap as far as the hardware lets them; below 0.5× needs a disk whose reads wait on
 * latency rather than bandwidth (a network file system, a busy or spinning disk).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, statSync, writeSync, closeSync } from "node:fs";
import { open } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createModel } from "../packages/core/src/model/providers.js";
import { Task } from "../packages/core/src/runtime/task.js";
import type { ToolExecution } from "../packages/core/src/storage/settings.js";
import { allTools } from "../packages/core/src/tools/registry.js";
import { startScriptedModelServer } from "../test/support/scripted-model-server.js";
import { drainRun } from "./drain-run.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";

const FILES = 6;
const FILE_BYTES = 16 * 1024 * 1024;
const RUNS = 9;
const GOAL = 0.5;
const WORKSPACE = path.join(os.tmpdir(), "cairn-bench-parallel-reads");

const log = (text: string): void => {
  process.stderr.write(`  ${text}\n`);
};

const fileName = (i: number) => `large-${i + 1}.log`;

/** Six large text files, written once and kept between bench runs (they are made in a few seconds). */
function ensureFiles(): void {
  mkdirSync(WORKSPACE, { recursive: true });
  const line = Buffer.from(`${"0123456789abcdef".repeat(6)} a log line of a large file\n`);
  const block = Buffer.concat(Array.from({ length: Math.ceil((1024 * 1024) / line.length) }, () => line)).subarray(0, 1024 * 1024);
  for (let i = 0; i < FILES; i++) {
    const file = path.join(WORKSPACE, fileName(i));
    if (existsSync(file) && statSync(file).size === FILE_BYTES) continue;
    log(`writing ${fileName(i)} (${FILE_BYTES / 1024 / 1024} MB)`);
    const fd = openSync(file, "w");
    for (let written = 0; written < FILE_BYTES; written += block.length) writeSync(fd, block);
    closeSync(fd);
  }
  spawnSync("sync", { stdio: "ignore" });
}

/** Drops the files' pages from the page cache (posix_fadvise DONTNEED through GNU dd); false where that does not work. */
function dropCache(): boolean {
  for (let i = 0; i < FILES; i++) {
    const done = spawnSync("dd", [`if=${path.join(WORKSPACE, fileName(i))}`, "iflag=nocache", "count=0", "status=none"], { stdio: "ignore" });
    if (done.status !== 0) return false;
  }
  return true;
}

/** The calls of one six-read reply, in ms, under `execution`. */
async function oneReply(execution: ToolExecution): Promise<number> {
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-pr-home-")));
  const server = await startScriptedModelServer({
    turns: [
      { content: Array.from({ length: FILES }, (_, i) => ({ type: "tool_use" as const, name: "read_file", input: { path: fileName(i), start_line: 130_000, end_line: 130_040 } })) },
      { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "read them" } }] },
    ],
  });
  try {
    const task = new Task({
      model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }) },
      tools: { list: allTools, scratchDir: path.join(home, "scratch"), execution },
      workspace: { cwd: WORKSPACE, home, environmentDetails: false },
      policy: { autoApprove: ["read"] },
    });
    let first: number | undefined;
    let last = 0;
    let ended = 0;
    await drainRun(task.run("Read the six logs."), (event) => {
      if (event.type === "tool_call" && event.name === "read_file") first ??= performance.now();
      if (event.type === "tool_call_update" && event.name === "read_file" && event.status !== "running" && event.status !== "awaiting_approval") {
        if (event.status !== "completed") throw new Error(`read_file ended ${event.status}: ${event.content}`);
        ended++;
        last = performance.now();
      }
    });
    if (ended !== FILES || first === undefined) throw new Error(`expected ${FILES} reads, saw ${ended}`);
    return last - first;
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

type Times = { best: number; median: number };
type Ratio = { parallel: Times; sequential: Times };

/** The six files' bytes alone, in ms: read in 1 MB chunks as read_file reads them, nothing else done with them. */
async function bytesAlone(execution: ToolExecution): Promise<number> {
  const readWhole = async (i: number) => {
    const handle = await open(path.join(WORKSPACE, fileName(i)), "r");
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    try {
      while ((await handle.read(chunk, 0, chunk.length, null)).bytesRead > 0);
    } finally {
      await handle.close();
    }
  };
  const started = performance.now();
  if (execution === "parallel") await Promise.all(Array.from({ length: FILES }, (_, i) => readWhole(i)));
  else for (let i = 0; i < FILES; i++) await readWhole(i);
  return performance.now() - started;
}

async function measure(cold: boolean, once: (execution: ToolExecution) => Promise<number>): Promise<Ratio | undefined> {
  const times: Record<ToolExecution, number[]> = { parallel: [], sequential: [] };
  await once("parallel"); // warm the code paths
  for (let i = 0; i < RUNS; i++) {
    for (const execution of (i % 2 === 0 ? ["sequential", "parallel"] : ["parallel", "sequential"]) as ToolExecution[]) {
      if (cold && !dropCache()) return undefined;
      times[execution].push(await once(execution));
    }
  }
  const summary = (values: number[]): Times => ({ best: Math.min(...values), median: median(values) });
  return { parallel: summary(times.parallel), sequential: summary(times.sequential) };
}

export async function run(): Promise<BenchRow[]> {
  ensureFiles();
  const rows: BenchRow[] = [];
  const shown = (t: Times) => `${t.best.toFixed(0)} ms (median ${t.median.toFixed(0)})`;
  for (const cold of [true, false]) {
    const label = `6 × read_file of ${FILE_BYTES / 1024 / 1024} MB, page cache ${cold ? "cold" : "warm"}`;
    log(label);
    const agent = await measure(cold, oneReply);
    if (!agent) {
      rows.push({ bench: "parallel-reads", case: label, measure: "skipped: dd iflag=nocache cannot drop the page cache here" });
      continue;
    }
    const ratio = agent.parallel.best / agent.sequential.best;
    rows.push({
      bench: "parallel-reads",
      case: label,
      measure: `parallel ${shown(agent.parallel)}`,
      baseline: `sequential ${shown(agent.sequential)}`,
      ratio: `${ratio.toFixed(2)}×`,
      ...(cold ? { goal: `≤ ${GOAL}×`, pass: ratio <= GOAL } : {}),
    });
    const floor = await measure(cold, bytesAlone);
    if (!floor) continue;
    rows.push({
      bench: "parallel-reads",
      case: `the same files' bytes alone (no agent), page cache ${cold ? "cold" : "warm"}: the machine's own ratio`,
      measure: `parallel ${shown(floor.parallel)}`,
      baseline: `sequential ${shown(floor.sequential)}`,
      ratio: `${(floor.parallel.best / floor.sequential.best).toFixed(2)}×`,
    });
  }
  return rows;
}
