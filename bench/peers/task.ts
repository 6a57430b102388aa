/**
 * One scripted task of an agent, headless, in a fresh workspace and temp folder and the agent's own
 * home (kept from task to task, as a person's is; a fresh one when none is given), against the
 * scripted model server: the agent's CPU with its children and peak RSS (GNU time), and the arrival
 * time and size of each request of its main loop. Side requests (a title, a quota check) are answered
 * and counted apart. The agent runs in a process group of its own; the group, and any process that
 * left it but carries this run's mark or folder (a daemon), is killed when the task ends, the CPU such
 * a process used counted with the task's, and the folders are removed.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startScriptedModelServer } from "../../test/support/scripted-model-server.js";
import { cpuOf } from "../replies.js";
import type { Measure } from "../startup.js";
import type { Agent, Place, Step } from "./agent.js";
import { killGroup } from "./install.js";

const TASK_TIMEOUT_MS = 180_000;
const MARK = "CAIRN_BENCH_PEERS_RUN";

/** A main-loop request: when it arrived (ms, this process's clock), its body's bytes as JSON, and its newest message (JSON, at most 4,000 characters). */
export type Arrival = { at: number; bytes: number; newest: string };
/** `cpuMs` counts the processes the run left running (`leftCpuMs` of it), read just before they are killed. */
export type TaskRun = Measure & { arrivals: Arrival[]; sideRequests: number; leftCpuMs: number };

/** The workspace every task starts from: ten small TypeScript files. */
function seed(ws: string): void {
  for (let i = 0; i < 10; i++) writeFileSync(path.join(ws, `file${i}.ts`), `export const value${i} = ${i};\n`);
}

/**
 * What a run left running outside its group's accounting: processes carrying its mark in their
 * environment, or started in or for its folder (a daemon that cleared its environment and left the
 * group, as Cline's hub does, still has it in its working directory or command line).
 */
function leftBehind(mark: string, dirs: readonly string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!/^\d+$/.test(entry) || pid === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "latin1");
      const ours =
        dirs.some((dir) => cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(dir)) ||
        readFileSync(`/proc/${pid}/environ`, "latin1").includes(`${MARK}=${mark}\0`);
      if (ours) pids.push(pid);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

/** Kills what a run left behind; the CPU they had used (ms, their ended children included). */
function killLeftBehind(mark: string, dirs: readonly string[]): number {
  let cpuMs = 0;
  for (const pid of leftBehind(mark, dirs)) {
    const used = cpuOf(pid);
    if (Number.isFinite(used)) cpuMs += used;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  return cpuMs;
}

/**
 * Runs `steps` as `agent`: the scripted model answers its n-th main-loop request with step n (the
 * last step again past the end). Throws, in one line, when the agent fails, times out, or does not
 * send a request per step; `check` reads the workspace and the requests after a run (that the edit landed, the command ran).
 */
export async function runTask(agent: Agent, steps: readonly Step[], prompt: string, check?: (ws: string, arrivals: readonly Arrival[]) => string | undefined, home?: string): Promise<TaskRun> {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-peers-")));
  const place: Place = { url: "", ws: path.join(dir, "ws"), home: home ?? path.join(dir, "home"), tmp: path.join(dir, "tmp") };
  for (const folder of [place.ws, place.tmp, ...(home ? [] : [place.home])]) mkdirSync(folder);
  const dirs = home ? [dir, home] : [dir];
  seed(place.ws);
  const arrivals: Arrival[] = [];
  let sideRequests = 0;
  const server = await startScriptedModelServer({
    responder: (request) => {
      if (!agent.isMainLoop(request)) {
        sideRequests++;
        return agent.sideAnswer(request);
      }
      const at = performance.now();
      const messages = (request.body as { messages?: unknown[] }).messages ?? [];
      arrivals.push({ at, bytes: Buffer.byteLength(JSON.stringify(request.body)), newest: JSON.stringify(messages.at(-1) ?? null).slice(0, 4000) });
      return agent.turn(steps[Math.min(arrivals.length, steps.length) - 1]!, place, request);
    },
  });
  place.url = server.url;
  const mark = randomUUID();
  const report = path.join(dir, "time.txt");
  let pid: number | undefined;
  let leftCpuMs = 0;
  try {
    await agent.prepare?.(place);
    const { argv, env } = agent.command(place, prompt);
    const started = performance.now();
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      // Its own process group, so the agent and every child it leaves behind are killed together.
      const child = spawn("/usr/bin/time", ["-o", report, "-f", "%U %S %M", ...argv], { cwd: place.ws, env: { ...env, [MARK]: mark }, stdio: ["ignore", "pipe", "pipe"], detached: true });
      pid = child.pid;
      let output = "";
      const keep = (d: Buffer) => void (output = (output + d.toString("utf8")).slice(-3000));
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      const timer = setTimeout(() => {
        output += `\n(killed after ${TASK_TIMEOUT_MS / 1000} s)`;
        killGroup(child.pid);
      }, TASK_TIMEOUT_MS);
      child.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on("close", (exit) => {
        clearTimeout(timer);
        resolve({ code: exit, output });
      });
    });
    const wallMs = performance.now() - started;
    killGroup(pid);
    leftCpuMs = killLeftBehind(mark, dirs);
    const lines = output.trim().split("\n").filter((l) => l.trim() !== "");
    const tail = lines.length === 0 ? "" : `: ${lines.slice(-2).join(" ").slice(0, 300)}`;
    if (code !== 0) throw new Error(`${agent.name} exited with ${code}${tail}`);
    if (arrivals.length < steps.length) throw new Error(`${agent.name} sent ${arrivals.length} main-loop request(s) for a ${steps.length}-step script (${sideRequests} side)${tail}`);
    const wrong = check?.(place.ws, arrivals);
    if (wrong !== undefined) throw new Error(`${agent.name}: ${wrong}`);
    const [user, system, rssKb] = readFileSync(report, "utf8").trim().split(/\s+/).slice(-3).map(Number);
    return { wallMs, cpuMs: (user! + system!) * 1000 + leftCpuMs, rssMb: rssKb! / 1024, arrivals, sideRequests, leftCpuMs };
  } finally {
    killGroup(pid);
    killLeftBehind(mark, dirs);
    await server.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}
