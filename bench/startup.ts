/**
 * What a person pays on every invocation (issue 13), against Node's own floor in the same run:
 *
 * - `cairn --version` and `cairn history`: wall time and peak RSS beside `node -e 0`, interleaved,
 *   median of N. Goal: ≤ 3× the floor's wall time.
 * - A one-turn headless task (the scripted model answers attempt_completion at once, default
 *   settings: checkpoints, rules and environment details on): the child's CPU time (user + system,
 *   its git and sandbox children included) and peak RSS. Goal: ≤ 0.45 s CPU, ≤ 160 MB. Beside it
 *   the same task with checkpoints off, to show their share.
 *
 * Each child runs under GNU time, which reports its wall, CPU and maximum RSS; the machine is
 * shared, so the runs are interleaved and the median is taken.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModelServer } from "../test/support/scripted-model-server.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";

const RUNS = 9;
const TASK_RUNS = 5;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cairnBin = path.join(repoRoot, "packages/cli/bin/cairn.js");
const gnuTime = "/usr/bin/time";

export type Measure = { wallMs: number; cpuMs: number; rssMb: number };

/** Runs a command under GNU time; the figures come from the kernel's accounting of the child. */
export function measured(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Measure> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-bench-time-"));
  const report = path.join(dir, "time.txt");
  return new Promise((resolve, reject) => {
    // Wall time from here (GNU time reports it in hundredths of a second); the wrapper costs both sides alike.
    const started = performance.now();
    const child = spawn(gnuTime, ["-o", report, "-f", "%U %S %M", ...args], { cwd: options.cwd ?? repoRoot, env: options.env ?? process.env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      try {
        if (code !== 0) throw new Error(`${args.join(" ")} exited with ${code}: ${stderr.slice(-500)}`);
        const [user, system, rssKb] = readFileSync(report, "utf8").trim().split(/\s+/).slice(-3).map(Number);
        resolve({ wallMs, cpuMs: (user! + system!) * 1000, rssMb: rssKb! / 1024 });
      } catch (error) {
        reject(error);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

function medians(samples: Measure[]): Measure {
  return { wallMs: median(samples.map((s) => s.wallMs)), cpuMs: median(samples.map((s) => s.cpuMs)), rssMb: median(samples.map((s) => s.rssMb)) };
}

/** Alternates the runs of each command, so a busy moment of the machine falls on all of them alike. */
export async function interleaved(commands: Record<string, () => Promise<Measure>>, runs: number): Promise<Record<string, Measure>> {
  const samples: Record<string, Measure[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let i = 0; i < runs; i++) for (const [name, command] of Object.entries(commands)) samples[name]!.push(await command());
  return Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, medians(s)]));
}

const ms = (value: number) => `${Math.round(value)} ms`;
const mb = (value: number) => `${Math.round(value)} MB`;

/**
 * How many JavaScript files the one-turn task has Node load, recorded by test/support's module
 * recorder. A file of the bundle counts once (the modules it holds are recorded after it; see
 * bundle-inputs.json beside it). Says whether the bundle ran: a stale one falls back to ~370 modules.
 */
async function filesLoaded(serverUrl: string, env: NodeJS.ProcessEnv, ws: string): Promise<BenchRow> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-bench-modules-"));
  try {
    const record = path.join(dir, "modules.txt");
    const recorder = path.join(repoRoot, "test/support/module-recorder/record.mjs");
    await measured([process.execPath, `--import=${recorder}`, cairnBin, "run", "--provider", "anthropic", "--base-url", serverUrl, "--cwd", ws, "--json", "Say you are done."], {
      env: { ...env, CAIRN_RECORD_MODULES: record },
      cwd: ws,
    });
    const lines = [...new Set(readFileSync(record, "utf8").split("\n").filter((line) => line.endsWith(".js") || line.endsWith(".mjs") || line.endsWith(".cjs")))];
    const bundleDir = path.join(repoRoot, "packages/cli/dist/bundle");
    const manifest = path.join(bundleDir, "bundle-inputs.json");
    const held = new Set<string>();
    if (existsSync(manifest)) {
      const inputs = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, string[]>;
      for (const line of lines) {
        const file = line.startsWith("file:") ? fileURLToPath(line) : line;
        if (path.dirname(file) !== bundleDir) continue;
        for (const input of inputs[path.basename(file)] ?? []) held.add(path.resolve(bundleDir, input));
      }
    }
    const files = lines.filter((line) => !held.has(line.startsWith("file:") ? fileURLToPath(line) : line));
    const bundled = files.filter((line) => line.includes("/packages/cli/dist/bundle/")).length;
    return {
      bench: "startup",
      case: "  JavaScript files the one-turn task loads",
      measure: `${files.length} files (${bundled} of the bundle), holding ${lines.length - bundled} modules`,
      baseline: "unbundled build: ~370 modules, each a file",
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(gnuTime)) {
    return [{ bench: "startup", case: "all", measure: `skipped: ${gnuTime} (GNU time) is not installed; apt-get install time` }];
  }
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-startup-home-")));
  // The same task without checkpoints, to show their share (their git processes count as the task's CPU).
  const bareHome = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-startup-bare-")));
  writeFileSync(path.join(bareHome, "settings.json"), JSON.stringify({ checkpoints: false }));
  const ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-startup-ws-")));
  writeFileSync(path.join(ws, "README.md"), "# A small project\n");
  const server = await startScriptedModelServer({
    responder: () => ({ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Done." } }] }),
  });
  const env: NodeJS.ProcessEnv = { ...process.env, CAIRN_HOME: home, ANTHROPIC_API_KEY: "k" };
  const node = process.execPath;
  try {
    const start = await interleaved(
      {
        floor: () => measured([node, "-e", "0"], { env }),
        version: () => measured([node, cairnBin, "--version"], { env }),
        history: () => measured([node, cairnBin, "history"], { env }),
      },
      RUNS,
    );
    const floor = start.floor!;
    const rows: BenchRow[] = [];
    for (const [name, label] of [["version", "cairn --version"], ["history", "cairn history"]] as const) {
      const m = start[name]!;
      const ratio = m.wallMs / floor.wallMs;
      rows.push({
        bench: "startup",
        case: `${label} (median of ${RUNS}, interleaved)`,
        measure: `${ms(m.wallMs)} wall, ${ms(m.cpuMs)} CPU, ${mb(m.rssMb)} peak RSS`,
        baseline: `node -e 0: ${ms(floor.wallMs)} wall, ${ms(floor.cpuMs)} CPU, ${mb(floor.rssMb)}`,
        ratio: `${ratio.toFixed(1)}× wall, ${(m.rssMb / floor.rssMb).toFixed(1)}× RSS`,
        goal: "≤ 3× wall",
        pass: ratio <= 3,
      });
    }

    const task = await interleaved(
      {
        floor: () => measured([node, "-e", "0"], { env }),
        task: () =>
          measured([node, cairnBin, "run", "--provider", "anthropic", "--base-url", server.url, "--cwd", ws, "--json", "Say you are done."], { env, cwd: ws }),
        bare: () =>
          measured([node, cairnBin, "run", "--provider", "anthropic", "--base-url", server.url, "--cwd", ws, "--json", "Say you are done."], {
            env: { ...env, CAIRN_HOME: bareHome },
            cwd: ws,
          }),
      },
      TASK_RUNS,
    );
    const t = task.task!;
    const f = task.floor!;
    rows.push({
      bench: "startup",
      case: `one-turn headless task, model answers at once (median of ${TASK_RUNS})`,
      measure: `${ms(t.cpuMs)} CPU, ${mb(t.rssMb)} peak RSS, ${ms(t.wallMs)} wall`,
      baseline: `node -e 0: ${ms(f.cpuMs)} CPU, ${mb(f.rssMb)}`,
      ratio: `${(t.cpuMs / f.cpuMs).toFixed(1)}× CPU, ${(t.rssMb / f.rssMb).toFixed(1)}× RSS`,
      goal: "≤ 450 ms CPU, ≤ 160 MB",
      pass: t.cpuMs <= 450 && t.rssMb <= 160,
    });
    rows.push(await filesLoaded(server.url, env, ws));
    const b = task.bare!;
    rows.push({
      bench: "startup",
      case: "  the same task with checkpoints off (their share)",
      measure: `${ms(b.cpuMs)} CPU, ${mb(b.rssMb)} peak RSS`,
      baseline: `with checkpoints: ${ms(t.cpuMs)} CPU`,
      ratio: `checkpoints: ${ms(t.cpuMs - b.cpuMs)} CPU`,
    });
    return rows;
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(bareHome, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
}
