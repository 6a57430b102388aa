/**
 * The terminal's cost over a bare child_process.spawn of the same command: per small command
 * (shell wrapper, process group, waiting logic) and on 8 MB of output (decoding, escape stripping,
 * head/tail windows; both write the log file). Also how much of the 8 MB reaches the model, and
 * how much the output buffers hold in memory at their peak.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CommandOutput, defaultOutputLimits, Terminal } from "../packages/core/src/terminal/index.js";
import type { BenchRow } from "./run.js";

const SMALL_RUNS = 40;
const BIG_RUNS = 9;
const BIG_COMMAND = "yes 'some line of output' | head -c 8000000";

let bareLogs = 0;

/** The least a capturing runner does: spawn the shell and keep its output (in a new file, when `toFile`). */
function bare(command: string, cwd: string, toFile: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/bash", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const fd = toFile ? openSync(path.join(cwd, `bare-${(bareLogs += 1)}.log`), "w") : undefined;
    const chunks: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => (fd === undefined ? chunks.push(d) : writeSync(fd, d)));
    child.on("error", reject);
    child.on("close", () => {
      if (fd !== undefined) closeSync(fd);
      resolve();
    });
  });
}

/** Median times of `a` and `b`, run alternately so that drift in machine load hits both alike. */
export async function timePair(runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  await a(); // warm-up
  await b();
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i += 1) {
    for (const [index, fn] of [a, b].entries()) {
      const start = performance.now();
      await fn();
      times[index as 0 | 1].push(performance.now() - start);
    }
  }
  const median = (list: number[]) => list.sort((x, y) => x - y)[Math.floor(list.length / 2)] ?? 0;
  return [median(times[0]), median(times[1])];
}

export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-terminal-"));
  const terminal = new Terminal({ scratchDir: path.join(dir, "scratch") });
  const rows: BenchRow[] = [];
  try {
    const runTerminal = async (command: string) => {
      const result = await terminal.run({ command, cwd: dir });
      if (!result.started || result.outcome.type !== "exited") throw new Error(`bench command did not finish: ${command}`);
      return result;
    };

    const [smallBare, smallOurs] = await timePair(
      SMALL_RUNS,
      () => bare("echo hi", dir, false),
      () => runTerminal("echo hi"),
    );
    const smallRatio = smallOurs / smallBare;
    rows.push({
      bench: "terminal",
      case: "echo hi (median of 40)",
      measure: `${smallOurs.toFixed(1)} ms`,
      baseline: `${smallBare.toFixed(1)} ms bare spawn`,
      ratio: `${smallRatio.toFixed(2)}×`,
      goal: "≤ 2× and ≤ 15 ms",
      pass: smallRatio <= 2 && smallOurs <= 15,
    });

    let resultChars = 0;
    const [bigBare, bigOurs] = await timePair(
      BIG_RUNS,
      () => bare(BIG_COMMAND, dir, true),
      async () => {
        resultChars = (await runTerminal(BIG_COMMAND)).output.length;
      },
    );
    const bigRatio = bigOurs / bigBare;
    rows.push({
      bench: "terminal",
      case: "8 MB output (median of 9)",
      measure: `${bigOurs.toFixed(0)} ms`,
      baseline: `${bigBare.toFixed(0)} ms bare spawn copying to a file`,
      ratio: `${bigRatio.toFixed(2)}×`,
      goal: "≤ 3×",
      pass: bigRatio <= 3,
    });
    rows.push({
      bench: "terminal",
      case: "8 MB output: text for the model",
      measure: `${resultChars.toLocaleString("en-US")} chars`,
      goal: "≤ 45,000",
      pass: resultChars <= 45_000,
    });

    // The buffers' own bound, measured the way the runner feeds them (64 KB pipe reads).
    const output = new CommandOutput(path.join(dir, "scratch", "memory.log"), defaultOutputLimits);
    const chunk = "some line of output\n".repeat(3_277);
    let peak = 0;
    for (let written = 0; written < 8_000_000; written += chunk.length) {
      output.write(chunk);
      peak = Math.max(peak, output.memoryChars);
    }
    output.close();
    rows.push({
      bench: "terminal",
      case: "8 MB output: chars held in memory (peak)",
      measure: `${peak.toLocaleString("en-US")} chars`,
      baseline: "8,000,000 if kept whole",
      ratio: `${(peak / 8_000_000).toFixed(4)}×`,
      goal: "≤ 50,000",
      pass: peak <= 50_000,
    });
  } finally {
    await terminal.dispose();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
