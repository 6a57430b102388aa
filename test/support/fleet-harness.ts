/**
 * What the fleet's end-to-end tests share: a real redis-server, the scripted model server answering
 * every job by the name in its task ("job=<name>: …"), local git repositories, `cairn fleet worker`
 * processes, and the `cairn fleet` commands a person would type to follow them.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { cleanEnv, runCairn, startCairn, tempDir } from "./cairn-cli.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedTurn } from "./scripted-model-server.js";

export type FleetWorker = ReturnType<typeof startCairn> & { name: string; home: string };

export type JobView = {
  id: string;
  state: string;
  attempts: number;
  failed_reason: string | null;
  result: null | { outcome: string; branch: string | null; worker: string; attempt: number; files_changed: string[]; pushed_to: string | null; cost_usd: number | null; answer: string };
};

/** One request of a job that reached the model: when, whether it opened the run, how it was answered. */
export type Seen = { at: number; first: boolean; answer: "ok" | "429" | "hang" };

/** How the scripted model treats a job's first request, by job name; `firstTurns`: what it answers instead of writing the job's file. */
export type Behaviour = { hangOnce: Set<string>; hangAlways: Set<string>; limitOnce: Set<string>; turnDelayMs: number; firstTurns: Map<string, ScriptedTurn> };

export type Fleet = Awaited<ReturnType<typeof startFleet>>;

export const git = (repo: string, ...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });

export async function waitUntil(test: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string, everyMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await sleep(everyMs);
  }
}

/** Processes whose command line names this job's scratch checkout: its run, and what the run started. */
export function processesOfJob(id: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`${path.sep}work${path.sep}${id}-`)) found.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

export async function startFleet(repoNames: string[], options: { redisBind?: string[] } = {}) {
  const root = tempDir("fleet");
  mkdirSync(path.join(root.dir, "redis"));
  const redis: RedisServer = await startRedisServer(path.join(root.dir, "redis"), { bind: options.redisBind });
  const seen = new Map<string, Seen[]>();
  const behaviour: Behaviour = { hangOnce: new Set(), hangAlways: new Set(), limitOnce: new Set(), turnDelayMs: 0, firstTurns: new Map() };
  const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], ...(behaviour.turnDelayMs ? { delayMs: behaviour.turnDelayMs } : {}) });

  const respond = (request: RecordedRequest): ScriptedTurn => {
    const name = /job=([\w-]+):/.exec(JSON.stringify(request.body.messages ?? []))?.[1] ?? "unknown";
    const first = !(request.body.messages as Array<{ role: string }>).some((m) => m.role === "assistant");
    const log = seen.get(name) ?? [];
    seen.set(name, log);
    const firsts = log.filter((r) => r.first).length;
    if (first && (behaviour.hangAlways.has(name) || (behaviour.hangOnce.has(name) && firsts === 0))) {
      log.push({ at: Date.now(), first, answer: "hang" });
      return { delayMs: 120_000, content: [{ type: "text", text: "too late" }] };
    }
    if (first && behaviour.limitOnce.has(name) && firsts === 0) {
      log.push({ at: Date.now(), first, answer: "429" });
      return { fault: { status: 429 } };
    }
    log.push({ at: Date.now(), first, answer: "ok" });
    if (first) return behaviour.firstTurns.get(name) ?? call("write_to_file", { path: `${name}.txt`, content: `written by job ${name}\n` });
    return call("attempt_completion", { result: `wrote ${name}.txt` });
  };
  const server: ScriptedModelServer = await startScriptedModelServer({ responder: respond });

  const repos: string[] = [];
  for (const name of repoNames) {
    const repo = path.join(root.dir, name);
    mkdirSync(repo);
    git(repo, "init", "-q", "-b", "main");
    writeFileSync(path.join(repo, "README.md"), `# ${name}\n`);
    git(repo, "add", "-A");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start");
    repos.push(repo);
  }

  const fleetSecret = randomBytes(32).toString("hex");
  const env = (extra: Record<string, string> = {}) =>
    cleanEnv({
      CAIRN_REDIS_URL: redis.url,
      ANTHROPIC_API_KEY: "k",
      // The machines of one fleet share a secret: fleet add signs with it, workers run only what it signed.
      CAIRN_FLEET_SECRET: fleetSecret,
      // The workers' own endpoint, so jobs that name it (runFlags) need no --allow.
      CAIRN_PROVIDER: "anthropic",
      CAIRN_BASE_URL: server.url,
      CAIRN_HOME: path.join(root.dir, "client-home"),
      // Quick enough for a test: a dead worker's job is taken up 3-6 s later; a retry waits 0.3 s; a 429 holds every worker back 1.5 s.
      CAIRN_FLEET_LOCK_MS: "3000",
      CAIRN_FLEET_BACKOFF_MS: "300",
      CAIRN_FLEET_RATE_PAUSE_MS: "1500",
      ...extra,
    });
  const runFlags = () => ["--provider", "anthropic", "--base-url", server.url, "--auto-approve", "read,edit"];
  const fleet = (args: string[], timeoutMs = 20_000) => runCairn(["fleet", ...args], { env: env(), timeoutMs });
  const workers: FleetWorker[] = [];

  const logs = () => workers.map((w) => `${w.name}:\n${w.output().stdout}${w.output().stderr}`).join("\n");

  async function status(): Promise<JobView[]> {
    const run = await fleet(["status", "--json"]);
    if (run.code !== 0) throw new Error(`cairn fleet status failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as JobView[];
  }

  return {
    root,
    redis,
    server,
    repos,
    seen,
    behaviour,
    fleetSecret,
    workers,
    env,
    runFlags,
    fleet,
    status,
    async startWorker(name: string, extraArgs: string[] = ["--concurrency", "2"], extraEnv: Record<string, string> = {}): Promise<FleetWorker> {
      const home = path.join(root.dir, `home-${name}`);
      mkdirSync(home, { recursive: true });
      const worker = Object.assign(startCairn(["fleet", "worker", ...extraArgs, "--name", name], { env: env({ CAIRN_HOME: home, ...extraEnv }) }), { name, home });
      workers.push(worker);
      await waitUntil(() => worker.output().stdout.includes("ready"), 15_000, () => `worker ${name} did not start:\n${worker.output().stderr}`);
      return worker;
    },
    async add(repo: string, name: string, extra: string[] = []): Promise<string> {
      const run = await fleet(["add", "--repo", repo, ...runFlags(), ...extra, "--", `job=${name}: write ${name}.txt`]);
      if (run.code !== 0) throw new Error(`cairn fleet add failed: ${run.stderr}`);
      return run.stdout.trim();
    },
    /** Waits until every job passes `done`, looking once a second (each look is a cairn process on two shared cores). */
    async waitForJobs(ids: string[], done: (job: JobView) => boolean, timeoutMs: number): Promise<Map<string, JobView>> {
      let last: JobView[] = [];
      await waitUntil(
        async () => {
          last = (await status()).filter((j) => ids.includes(j.id));
          return last.length === ids.length && last.every(done);
        },
        timeoutMs,
        () => `jobs not done: ${JSON.stringify(last.filter((j) => !done(j)))}\n${logs()}`,
        1000,
      );
      return new Map(last.map((j) => [j.id, j]));
    },
    async stop(): Promise<void> {
      for (const w of workers) w.child.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.exited));
      await redis.stop();
      await server.close();
      root.cleanup();
    },
  };
}
