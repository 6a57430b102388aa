/**
 * `cairn fleet` throughput: jobs per minute with 1, 2 and 4 workers (one job at a time each, as
 * many machines would), against 1 worker in the same run. Goal: ≥ 0.8× linear up to the core
 * count (beyond it the workers share the cores, so the expectation stays at the core count).
 *
 * Everything is real but the model: a redis-server on a free port, `cairn fleet worker`
 * processes, each job a `cairn run` in a fresh checkout that writes a file and completes (two
 * turns of the scripted model, 200 ms each), committed and pushed on its branch.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { startRedisServer } from "../test/support/redis-server.js";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../test/support/scripted-model-server.js";
import type { BenchRow } from "./run.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cairnBin = path.join(repoRoot, "packages/cli/bin/cairn.js");
const JOBS_PER_WORKER = 6;
const TURN_MS = 200;

function respond(request: RecordedRequest): ScriptedTurn {
  const messages = JSON.stringify(request.body.messages ?? []);
  const name = /job=([\w-]+):/.exec(messages)?.[1] ?? "unknown";
  const first = !(request.body.messages as Array<{ role: string }>).some((m) => m.role === "assistant");
  const content = first ? [{ type: "tool_use" as const, name: "write_to_file", input: { path: `${name}.txt`, content: `${name}\n` } }] : [{ type: "tool_use" as const, name: "attempt_completion", input: { result: "done" } }];
  return { delayMs: TURN_MS, content };
}

async function jobsPerMinute(workers: number, root: string): Promise<number> {
  const dir = path.join(root, `w${workers}`);
  mkdirSync(path.join(dir, "redis"), { recursive: true });
  const redis = await startRedisServer(path.join(dir, "redis"));
  const server = await startScriptedModelServer({ responder: respond });
  const repo = path.join(dir, "repo");
  mkdirSync(repo);
  execFileSync("git", ["-C", repo, "init", "-q", "-b", "main"]);
  writeFileSync(path.join(repo, "README.md"), "# bench\n");
  execFileSync("git", ["-C", repo, "add", "-A"]);
  execFileSync("git", ["-C", repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "start"]);
  // One fleet secret for the adding and the working machines; the workers' own endpoint is the scripted server.
  const env = { ...process.env, CAIRN_REDIS_URL: redis.url, ANTHROPIC_API_KEY: "k", CAIRN_FLEET_SECRET: "bench-fleet-secret-0123456789abcdef0123456789", CAIRN_PROVIDER: "anthropic", CAIRN_BASE_URL: server.url };
  const procs: ChildProcess[] = [];
  const queue = new Queue("cairn-fleet", { connection: { host: "127.0.0.1", port: redis.port } });
  try {
    for (let i = 0; i < workers; i++) {
      const home = path.join(dir, `home-${i}`);
      mkdirSync(home);
      const proc = spawn(process.execPath, [cairnBin, "fleet", "worker", "--name", `b${i}`], { env: { ...env, CAIRN_HOME: home }, stdio: ["ignore", "pipe", "inherit"] });
      procs.push(proc);
      await new Promise<void>((resolve) => proc.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve()));
    }
    const total = JOBS_PER_WORKER * workers;
    const tasks = path.join(dir, "tasks.jsonl");
    writeFileSync(tasks, Array.from({ length: total }, (_, i) => JSON.stringify({ repo, task: `job=j${i}: write j${i}.txt` })).join("\n"));
    execFileSync(process.execPath, [cairnBin, "fleet", "add", "--tasks", tasks, "--provider", "anthropic", "--base-url", server.url, "--auto-approve", "read,edit"], { env: { ...env, CAIRN_HOME: path.join(dir, "client") }, stdio: "ignore" });
    // From the moment the jobs are queued: the add command's own start-up is the same for every row.
    const started = performance.now();
    for (;;) {
      const counts = await queue.getJobCounts("completed", "failed");
      if ((counts.failed ?? 0) > 0) throw new Error(`bench fleet: ${counts.failed} job(s) failed with ${workers} worker(s)`);
      if (counts.completed === total) break;
      await sleep(100);
    }
    const minutes = (performance.now() - started) / 60_000;
    return total / minutes;
  } finally {
    for (const proc of procs) proc.kill("SIGKILL");
    await queue.close();
    await server.close();
    await redis.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-fleet-")));
  const cores = os.availableParallelism();
  try {
    const one = await jobsPerMinute(1, root);
    const rows: BenchRow[] = [{ bench: "fleet", case: "1 worker", measure: `${one.toFixed(1)} jobs/min`, baseline: "-", ratio: "1.00×" }];
    for (const workers of [2, 4]) {
      const rate = await jobsPerMinute(workers, root);
      const linear = Math.min(workers, cores);
      const ratio = rate / one;
      rows.push({
        bench: "fleet",
        case: `${workers} workers (${cores} cores)`,
        measure: `${rate.toFixed(1)} jobs/min`,
        baseline: `${one.toFixed(1)} jobs/min`,
        ratio: `${ratio.toFixed(2)}×`,
        goal: `≥ ${(0.8 * linear).toFixed(2)}× (0.8 × ${linear})`,
        pass: ratio >= 0.8 * linear,
      });
    }
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
