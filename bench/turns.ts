/**
 * What each turn costs besides the model (issue 13), against the same run without checkpoints:
 *
 * - Agent overhead per turn: a scripted task of small writes (write_to_file, one per reply), run in
 *   this process through the real Task, store, journal, rules, environment details and checkpoints,
 *   on a 20-file workspace and on the 100,000-file workspace of bench/checkpoints.ts. Per turn: the
 *   wall time between two turn_start events (median), and the CPU of this process plus its git
 *   children. Baseline: the same task with checkpoints off, interleaved. The model's own round trip
 *   (the scripted server answering the same request, measured alone) is taken off both, so what is
 *   left is the agent's. Goals: ≤ 30 ms (20 files), ≤ 150 ms (100,000 files).
 * - git processes of a five-reply task through the real CLI (a PATH-shimmed `git` that logs each
 *   call): write, write, read, command, completion. Goal: one checkpoint per step that changed
 *   files, no `git repack` on the task's path.
 * - First-request latency in the 100,000-file workspace with a fresh CAIRN_HOME (the checkpoint
 *   store is built in this run), real CLI: from spawn to the first model request, and to the second
 *   (after a read_file, which must not wait for the indexing). Baseline: checkpoints off.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Checkpoints } from "../packages/core/src/checkpoints/index.js";
import { createModel } from "../packages/core/src/model/providers.js";
import { Task } from "../packages/core/src/runtime/task.js";
import { TaskStore } from "../packages/core/src/storage/task-store.js";
import { allTools } from "../packages/core/src/tools/registry.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../test/support/scripted-model-server.js";
import { ensureWorkspace, WORKSPACE as BIG_WORKSPACE } from "./checkpoints.js";
import { drainRun } from "./drain-run.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cairnBin = path.join(ROOT, "packages/cli/bin/cairn.js");
const TURNS = 12;
const RUNS_SMALL = 5;
const RUNS_BIG = 3;
const GOAL_SMALL_MS = 30;
const GOAL_BIG_MS = 150;
const GOAL_GIT_PROCESSES = 30;
const GOAL_FIRST_REQUEST_MS = 1_000;

const log = (text: string): void => {
  process.stderr.write(`  ${text}\n`);
};

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

/** utime, stime, cutime and cstime of a process (fields 14-17 of /proc/<pid>/stat), in ms (100 clock ticks per second). */
function procTimes(pid: number | "self"): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { own: (Number(fields[11]) + Number(fields[12])) * 10, children: (Number(fields[13]) + Number(fields[14])) * 10 };
}

/**
 * CPU of this process and of every process it started, in ms: the children that ended (git run
 * directly) and those still running (the checkpoints' shell, with the git commands it ran).
 */
function cpuMs(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    children = procTimes("self").children;
    for (const pid of readFileSync(`/proc/self/task/${process.pid}/children`, "utf8").split(" ").filter(Boolean)) {
      try {
        const times = procTimes(Number(pid));
        children += times.own + times.children;
      } catch {
        // Ended meanwhile: counted with the reaped children next time.
      }
    }
  } catch {
    // Not Linux: the children's share is left out on both sides alike.
  }
  return (own.user + own.system) / 1000 + children;
}

type TurnSample = { wallMs: number; cpuMs: number };

/** Waits for the detached packing a task may leave running in its checkpoint stores (a marker file while it runs). */
async function packingDone(home: string): Promise<void> {
  const stores = path.join(home, "checkpoints");
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    const busy = existsSync(stores) && readdirSync(stores).some((store) => existsSync(path.join(stores, store, "cairn-packing")));
    if (!busy) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Removes a CAIRN_HOME once no packing writes into it. */
async function removeHome(home: string): Promise<void> {
  await packingDone(home);
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}

/** One scripted task of `TURNS` small writes then a completion; per turn, the middle turns' wall and CPU. */
export async function runTask(workspace: string, home: string, checkpoints: boolean, tag: string): Promise<TurnSample> {
  const turns: ScriptedTurn[] = [];
  for (let i = 1; i <= TURNS; i++) turns.push(call("write_to_file", { path: `bench-turns/${tag}.txt`, content: `turn ${i} of a small edit\n` }));
  turns.push(call("attempt_completion", { result: "done" }));
  const server = await startScriptedModelServer({ turns });
  try {
    const store = TaskStore.create(home, { workspace, provider: "anthropic", model: "claude-sonnet-4-5", protocol: "native", mode: "act", task: "bench" });
    const task = new Task({
      model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }) },
      tools: { list: allTools, mentions: true, scratchDir: path.join(store.dir, "scratch") },
      workspace: { cwd: workspace, home, ...(checkpoints ? { checkpoints: await Checkpoints.open({ workspace, baseDir: path.join(home, "checkpoints") }) } : {}) },
      journal: { store },
      policy: { autoApprove: ["read", "edit"] },
    });
    const marks: { wall: number; cpu: number }[] = [];
    await drainRun(task.run("Make small edits, one per turn."), (event) => {
      if (event.type === "turn_start") marks.push({ wall: performance.now(), cpu: cpuMs() });
    });
    // Turns 2..TURNS: the first pays one-time costs, the last is the completion.
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let i = 2; i < marks.length - 1; i++) {
      walls.push(marks[i]!.wall - marks[i - 1]!.wall);
      cpus.push(marks[i]!.cpu - marks[i - 1]!.cpu);
    }
    return { wallMs: median(walls), cpuMs: median(cpus) };
  } finally {
    await server.close();
  }
}

/** The model's own round trip: the scripted server streaming the same kind of reply, with no agent around it. */
export async function modelFloor(): Promise<number> {
  const server = await startScriptedModelServer({ responder: () => call("write_to_file", { path: "x.txt", content: "turn 1 of a small edit\n" }) });
  try {
    const model = createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url });
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      for await (const event of model.stream({ system: "s", messages: [{ role: "user", content: [{ type: "text", text: "go" }] }] }, new AbortController().signal)) void event;
      times.push(performance.now() - started);
    }
    return median(times.slice(3));
  } finally {
    await server.close();
  }
}

export async function perTurn(label: string, workspace: string, runs: number): Promise<{ on: TurnSample; off: TurnSample }> {
  const homeOn = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-turns-on-")));
  const homeOff = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-turns-off-")));
  const tag = `t${process.pid}`;
  try {
    // A first run of each builds what later runs reuse (the checkpoint store's first index).
    log(`${label}: warm-up (the first checkpoint of the workspace)...`);
    await runTask(workspace, homeOn, true, tag);
    await runTask(workspace, homeOff, false, tag);
    // The first checkpoint's objects are packed in the background: not during the measured runs.
    await packingDone(homeOn);
    const on: TurnSample[] = [];
    const off: TurnSample[] = [];
    for (let i = 0; i < runs; i++) {
      on.push(await runTask(workspace, homeOn, true, tag));
      off.push(await runTask(workspace, homeOff, false, tag));
      log(`${label}: run ${i + 1}: on ${on.at(-1)!.wallMs.toFixed(1)} ms/turn, off ${off.at(-1)!.wallMs.toFixed(1)} ms/turn`);
    }
    const pick = (samples: TurnSample[]): TurnSample => ({ wallMs: median(samples.map((s) => s.wallMs)), cpuMs: median(samples.map((s) => s.cpuMs)) });
    return { on: pick(on), off: pick(off) };
  } finally {
    rmSync(path.join(workspace, "bench-turns"), { recursive: true, force: true });
    await removeHome(homeOn);
    await removeHome(homeOff);
  }
}

export function smallWorkspace(): string {
  const ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-turns-ws-")));
  for (let i = 0; i < 20; i++) {
    mkdirSync(path.join(ws, `src${i % 4}`), { recursive: true });
    writeFileSync(path.join(ws, `src${i % 4}`, `file${i}.ts`), `export const value${i} = ${i};\n`);
  }
  return ws;
}

/** A `git` first on PATH that logs each call (one line per process) and runs the real one. */
function gitShim(dir: string, logFile: string): string {
  const realGit = ["/usr/bin/git", "/usr/local/bin/git", "/bin/git"].find((candidate) => existsSync(candidate)) ?? "git";
  const bin = path.join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${logFile}'\nexec '${realGit}' "$@"\n`);
  chmodSync(path.join(bin, "git"), 0o755);
  return bin;
}

/** Arguments after git's own `-c key=value` options: the subcommand first. */
function subcommand(line: string): string {
  const words = line.split(" ");
  let i = 0;
  while (words[i] === "-c") i += 2;
  return words[i] ?? "";
}

type CliRun = { code: number; stdout: string; stderr: string; wallMs: number };

function runCli(args: string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs = 600_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cairnBin, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}

export async function gitProcesses(): Promise<{ total: number; repack: number; checkpoints: number; bySubcommand: string }> {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-gitcount-")));
  const ws = path.join(dir, "ws");
  const home = path.join(dir, "home");
  mkdirSync(ws);
  mkdirSync(home);
  for (let i = 0; i < 20; i++) writeFileSync(path.join(ws, `file${i}.ts`), `export const v = ${i};\n`);
  const logFile = path.join(dir, "git.log");
  const bin = gitShim(dir, logFile);
  const server = await startScriptedModelServer({
    turns: [
      call("write_to_file", { path: "a.txt", content: "one\n" }),
      call("write_to_file", { path: "b.txt", content: "two\n" }),
      call("read_file", { path: "a.txt" }),
      call("execute_command", { command: "echo three > c.txt", requires_approval: false }),
      call("attempt_completion", { result: "done" }),
    ],
  });
  try {
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}`, CAIRN_HOME: home, ANTHROPIC_API_KEY: "k" };
    const run = await runCli(
      ["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", ws, "--auto-approve", "edit,all-commands", "--sandbox", "off", "--json", "five replies"],
      env,
      ws,
    );
    if (run.code !== 0) throw new Error(`five-reply task failed (${run.code}): ${run.stderr.slice(-500)}`);
    const lines = readFileSync(logFile, "utf8").split("\n").filter((l) => l !== "");
    const counts = new Map<string, number>();
    for (const line of lines) counts.set(subcommand(line), (counts.get(subcommand(line)) ?? 0) + 1);
    const checkpoints = run.stdout.split("\n").filter((l) => l.includes('"type":"checkpoint"')).length;
    return {
      total: lines.length,
      repack: counts.get("repack") ?? 0,
      checkpoints,
      bySubcommand: [...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${n}`).join(", "),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type FirstRequest = { firstMs: number; secondMs: number; wallMs: number; notice: boolean };

/** The CLI in the 100,000-file workspace with a fresh CAIRN_HOME: when do its first two requests arrive? */
export async function firstRequest(checkpoints: boolean): Promise<FirstRequest> {
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-first-")));
  if (!checkpoints) writeFileSync(path.join(home, "settings.json"), JSON.stringify({ checkpoints: false }));
  const arrivals: number[] = [];
  let started = 0;
  const script = [
    call("read_file", { path: "pkg0/mod0/part0/file0.ts" }),
    call("write_to_file", { path: "bench-first/new.txt", content: "new\n" }),
    call("attempt_completion", { result: "done" }),
  ];
  let server: ScriptedModelServer | undefined;
  try {
    server = await startScriptedModelServer({
      responder: (_request, index) => {
        arrivals.push(performance.now() - started);
        return script[index] ?? script[script.length - 1]!;
      },
    });
    started = performance.now();
    const run = await runCli(
      ["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", BIG_WORKSPACE, "--auto-approve", "edit", "--json", "Read a file, then write one."],
      { ...process.env, CAIRN_HOME: home, ANTHROPIC_API_KEY: "k" },
      BIG_WORKSPACE,
    );
    if (run.code !== 0) throw new Error(`first-request task failed (${run.code}): ${run.stderr.slice(-500)}`);
    return { firstMs: arrivals[0] ?? Number.NaN, secondMs: arrivals[1] ?? Number.NaN, wallMs: run.wallMs, notice: /indexing [\d,]+ files/.test(run.stdout + run.stderr) };
  } finally {
    await server?.close();
    rmSync(path.join(BIG_WORKSPACE, "bench-first"), { recursive: true, force: true });
    await removeHome(home);
  }
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const floor = await modelFloor();
  log(`model round trip alone: ${ms(floor)}`);

  const turnRow = (label: string, result: { on: TurnSample; off: TurnSample }, goal: number, runs: number): BenchRow[] => {
    const overhead = result.on.wallMs - floor;
    return [
      {
        bench: "turns",
        case: `agent overhead per turn, ${label}, a small write per turn, checkpoints on (median of ${runs} runs × ${TURNS - 2} turns)`,
        measure: `${ms(overhead)} (${ms(result.on.wallMs)} per turn − ${ms(floor)} model round trip); ${ms(result.on.cpuMs)} CPU with git`,
        baseline: `checkpoints off: ${ms(result.off.wallMs - floor)}; ${ms(result.off.cpuMs)} CPU`,
        ratio: `${(result.on.wallMs / result.off.wallMs).toFixed(2)}× wall per turn`,
        goal: `≤ ${goal} ms`,
        pass: overhead <= goal,
      },
    ];
  };

  const small = smallWorkspace();
  try {
    rows.push(...turnRow("20-file workspace", await perTurn("20 files", small, RUNS_SMALL), GOAL_SMALL_MS, RUNS_SMALL));
  } finally {
    rmSync(small, { recursive: true, force: true });
  }

  await ensureWorkspace();
  rows.push(...turnRow("100,000-file workspace", await perTurn("100,000 files", BIG_WORKSPACE, RUNS_BIG), GOAL_BIG_MS, RUNS_BIG));

  if (!existsSync(path.join(ROOT, "packages/cli/dist"))) {
    rows.push({ bench: "turns", case: "CLI rows", measure: "skipped: build first (npm run build)" });
    return rows;
  }
  const git = await gitProcesses();
  rows.push({
    bench: "turns",
    case: "git processes for a five-reply task (write, write, read, command, completion), real CLI",
    measure: `${git.total} processes, ${git.repack} git repack, ${git.checkpoints} checkpoint events (${git.bySubcommand})`,
    goal: `≤ ${GOAL_GIT_PROCESSES}, no repack`,
    pass: git.total <= GOAL_GIT_PROCESSES && git.repack === 0,
  });

  const on: FirstRequest[] = [];
  const off: FirstRequest[] = [];
  for (let i = 0; i < 2; i++) {
    on.push(await firstRequest(true));
    off.push(await firstRequest(false));
    log(`first request: on ${on.at(-1)!.firstMs.toFixed(0)} ms / second ${on.at(-1)!.secondMs.toFixed(0)} ms; off ${off.at(-1)!.firstMs.toFixed(0)} ms`);
  }
  const firstOn = median(on.map((r) => r.firstMs));
  const firstOff = median(off.map((r) => r.firstMs));
  rows.push({
    bench: "turns",
    case: "first model request, 100,000-file workspace, fresh CAIRN_HOME, real CLI (median of 2)",
    measure: `${ms(firstOn)} after spawn; the second (after a read_file) ${ms(median(on.map((r) => r.secondMs)))}; whole task ${ms(median(on.map((r) => r.wallMs)))}; indexing notice: ${on.every((r) => r.notice) ? "yes" : "no"}`,
    baseline: `checkpoints off: ${ms(firstOff)}, second ${ms(median(off.map((r) => r.secondMs)))}, whole task ${ms(median(off.map((r) => r.wallMs)))}`,
    ratio: `${(firstOn / firstOff).toFixed(2)}×`,
    goal: `≤ ${GOAL_FIRST_REQUEST_MS} ms`,
    pass: firstOn <= GOAL_FIRST_REQUEST_MS,
  });
  return rows;
}
