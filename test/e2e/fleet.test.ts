import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, runCairn, startCairn, tempDir } from "../support/cairn-cli.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * `cairn fleet` for real: a redis-server on a free port, worker processes (`cairn fleet worker`),
 * each job run by the real `cairn run` against the scripted model server, branches pushed into
 * real git repositories. Each task names its job ("job=<name>: …") so one server can answer every
 * job, whichever worker runs it and in whatever order.
 */

let root: ReturnType<typeof tempDir>;
let redis: RedisServer;
let server: ScriptedModelServer;
const repos: string[] = [];
type Worker = ReturnType<typeof startCairn> & { name: string; home: string };
const workers: Worker[] = [];

/** When each job's requests reached the model, and how they were answered. */
const seen = new Map<string, Array<{ at: number; first: boolean; answer: "ok" | "429" | "hang" }>>();
/** Jobs whose first request hangs the first time (a worker killed mid-job) or always (cancel). */
const hangOnce = new Set<string>();
const hangAlways = new Set<string>();
/** Jobs whose first request is answered 429 once. */
const limitOnce = new Set<string>();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

function respond(request: RecordedRequest): ScriptedTurn {
  const messages = JSON.stringify(request.body.messages ?? []);
  const name = /job=([\w-]+):/.exec(messages)?.[1] ?? "unknown";
  const first = !(request.body.messages as Array<{ role: string }>).some((m) => m.role === "assistant");
  const log = seen.get(name) ?? [];
  seen.set(name, log);
  const firsts = log.filter((r) => r.first).length;
  if (first && (hangAlways.has(name) || (hangOnce.has(name) && firsts === 0))) {
    log.push({ at: Date.now(), first, answer: "hang" });
    return { delayMs: 120_000, content: [{ type: "text", text: "too late" }] };
  }
  if (first && limitOnce.has(name) && firsts === 0) {
    log.push({ at: Date.now(), first, answer: "429" });
    return { fault: { status: 429 } };
  }
  log.push({ at: Date.now(), first, answer: "ok" });
  if (first) return call("write_to_file", { path: `${name}.txt`, content: `written by job ${name}\n` });
  return call("attempt_completion", { result: `wrote ${name}.txt` });
}

const env = (extra: Record<string, string> = {}) =>
  cleanEnv({
    CAIRN_REDIS_URL: redis.url,
    ANTHROPIC_API_KEY: "k",
    CAIRN_HOME: path.join(root.dir, "client-home"),
    // Quick enough for a test: a dead worker's job is taken up 3-6 s later; a retry waits 0.3 s; a 429 holds every worker back 1.5 s.
    CAIRN_FLEET_LOCK_MS: "3000",
    CAIRN_FLEET_BACKOFF_MS: "300",
    CAIRN_FLEET_RATE_PAUSE_MS: "1500",
    ...extra,
  });

const runFlags = () => ["--provider", "anthropic", "--base-url", server.url, "--auto-approve", "read,edit"];
const fleet = (args: string[], timeoutMs = 20_000) => runCairn(["fleet", ...args], { env: env(), timeoutMs });

async function startWorker(name: string, concurrency = 2): Promise<Worker> {
  const home = path.join(root.dir, `home-${name}`);
  mkdirSync(home, { recursive: true });
  const worker = Object.assign(startCairn(["fleet", "worker", "--concurrency", String(concurrency), "--name", name], { env: env({ CAIRN_HOME: home }) }), { name, home });
  workers.push(worker);
  await waitUntil(() => worker.output().stdout.includes("ready"), 15_000, () => `worker ${name} did not start:\n${worker.output().stderr}`);
  return worker;
}

async function waitUntil(test: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string, everyMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await sleep(everyMs);
  }
}

type JobView = { id: string; state: string; attempts: number; result: null | { outcome: string; branch: string | null; worker: string; attempt: number; files_changed: string[]; pushed_to: string | null } };

async function status(): Promise<JobView[]> {
  const run = await fleet(["status", "--json"]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as JobView[];
}

async function waitForJobs(ids: string[], done: (job: JobView) => boolean, timeoutMs: number): Promise<Map<string, JobView>> {
  let last: JobView[] = [];
  await waitUntil(
    async () => {
      last = (await status()).filter((j) => ids.includes(j.id));
      return last.length === ids.length && last.every(done);
    },
    timeoutMs,
    () => `jobs not done: ${JSON.stringify(last.filter((j) => !done(j)))}\n${workers.map((w) => `${w.name}:\n${w.output().stdout}${w.output().stderr}`).join("\n")}`,
    1000, // each look is a cairn process: on two shared cores, looking often slows the workers down
  );
  return new Map(last.map((j) => [j.id, j]));
}

async function add(repo: string, name: string, extra: string[] = []): Promise<string> {
  const run = await fleet(["add", "--repo", repo, ...runFlags(), ...extra, "--", `job=${name}: write ${name}.txt`]);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim();
}

const git = (repo: string, ...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });

/** Processes whose command line names this job's scratch checkout: its run, and what the run started. */
function processesOfJob(id: string): number[] {
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

beforeAll(async () => {
  root = tempDir("fleet");
  mkdirSync(path.join(root.dir, "redis"));
  redis = await startRedisServer(path.join(root.dir, "redis"));
  server = await startScriptedModelServer({ responder: respond });
  for (const name of ["alpha", "beta", "gamma"]) {
    const repo = path.join(root.dir, name);
    mkdirSync(repo);
    git(repo, "init", "-q", "-b", "main");
    writeFileSync(path.join(repo, "README.md"), `# ${name}\n`);
    git(repo, "add", "-A");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start");
    repos.push(repo);
  }
  await startWorker("w1");
  await startWorker("w2");
}, 60_000);

afterAll(async () => {
  for (const w of workers) w.child.kill("SIGKILL");
  await Promise.all(workers.map((w) => w.exited));
  await redis?.stop();
  await server?.close();
  root?.cleanup();
});

describe("cairn fleet", () => {
  it("says in one line when Redis cannot be reached", async () => {
    const run = await runCairn(["fleet", "status"], { env: env({ CAIRN_REDIS_URL: "redis://127.0.0.1:1" }) });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*ECONNREFUSED.*CAIRN_REDIS_URL/);
  });

  it("runs 20 jobs over 3 repositories on two workers and pushes each job's branch", async () => {
    const names = Array.from({ length: 20 }, (_, i) => `batch-${i}`);
    const tasks = path.join(root.dir, "tasks.jsonl");
    writeFileSync(tasks, names.map((name, i) => JSON.stringify({ repo: repos[i % 3], task: `job=${name}: write ${name}.txt`, options: { "max-turns": 4 } })).join("\n") + "\n");
    const added = await fleet(["add", "--tasks", tasks, ...runFlags()]);
    expect(added.code, added.stderr).toBe(0);
    const ids = added.stdout.trim().split("\n");
    expect(ids).toHaveLength(20);

    const jobs = await waitForJobs(ids, (j) => j.state === "completed", 100_000);
    const byWorker = new Set<string>();
    ids.forEach((id, i) => {
      const job = jobs.get(id)!;
      expect(job.result!.outcome).toBe("success");
      expect(job.result!.branch).toBe(`cairn/${id}`);
      expect(job.result!.files_changed).toEqual([`${names[i]}.txt`]);
      byWorker.add(job.result!.worker);
      // The branch is in the repository the job named, with the job's file; main is untouched.
      expect(git(repos[i % 3]!, "show", `cairn/${id}:${names[i]}.txt`)).toBe(`written by job ${names[i]}\n`);
      expect(git(repos[i % 3]!, "log", "--format=%s", "-1", `cairn/${id}`)).toContain(`cairn fleet job ${id}`);
    });
    expect(byWorker).toEqual(new Set(["w1", "w2"]));
    for (const repo of repos) expect(git(repo, "ls-tree", "--name-only", "main").trim()).toBe("README.md");
    for (const name of names) expect(seen.get(name)!.filter((r) => r.first)).toHaveLength(1);

    const result = await fleet(["result", ids[0]!]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`branch: cairn/${ids[0]} pushed to ${repos[0]}`);
    expect(result.stdout).toContain("files: batch-0.txt");
    expect(result.stdout).toContain("wrote batch-0.txt");
    // The job's events outlive it, in Redis, for any machine to read.
    const watch = await fleet(["watch", ids[0]!]);
    expect(watch.code, watch.stderr).toBe(0);
    expect(watch.stdout).toMatch(/── attempt 1 on w[12]/);
    expect(watch.stdout).toContain("batch-0.txt");
    expect(watch.stdout).toContain(`── completed: success, cairn/${ids[0]}`);
  }, 120_000);

  it("a worker killed with SIGKILL mid-job: its run ends with it, and another worker completes the job once", async () => {
    hangOnce.add("killed");
    const id = await add(repos[0]!, "killed");
    await waitUntil(() => (seen.get("killed")?.length ?? 0) > 0, 20_000, () => "the job never reached the model");
    const holder = workers.find((w) => w.output().stdout.includes(`${id}: started`))!;
    expect(holder).toBeDefined();
    expect(processesOfJob(id).length).toBeGreaterThan(0); // positive control: the run is there to be found
    holder.child.kill("SIGKILL");
    await holder.exited;
    const killedAt = Date.now();
    // The run guard sees its pipe close and ends the run and what it started.
    await waitUntil(() => processesOfJob(id).length === 0, 10_000, () => `processes of job ${id} still running: ${processesOfJob(id).join(", ")}`);

    const jobs = await waitForJobs([id], (j) => j.state === "completed", 30_000);
    const job = jobs.get(id)!;
    const other = workers.find((w) => w !== holder && w.child.exitCode === null)!;
    expect(job.result!.outcome).toBe("success");
    expect(job.result!.worker).toBe(other.name);
    expect(job.attempts).toBe(2);
    expect(git(repos[0]!, "show", `cairn/${id}:killed.txt`)).toBe("written by job killed\n");
    expect(git(repos[0]!, "rev-list", "--count", `main..cairn/${id}`).trim()).toBe("1");
    // Never twice at once: the second run reached the model only after the first worker was dead.
    const firsts = seen.get("killed")!.filter((r) => r.first);
    expect(firsts.map((r) => r.answer)).toEqual(["hang", "ok"]);
    expect(firsts[1]!.at).toBeGreaterThanOrEqual(killedAt);
    // Recorded once: one completion, by the worker that finished it.
    expect(other.output().stdout.match(new RegExp(`${id}: success`, "g"))).toHaveLength(1);

    await startWorker("w3"); // two workers again for what follows
  }, 90_000);

  it("cancel stops a running job: its run ends, nothing is pushed, and it shows as cancelled", async () => {
    hangAlways.add("cancelled");
    const id = await add(repos[1]!, "cancelled");
    await waitUntil(() => (seen.get("cancelled")?.length ?? 0) > 0 && processesOfJob(id).length > 0, 20_000, () => "the job never started");
    const cancel = await fleet(["cancel", id]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain(`${id}: cancelling`);
    const jobs = await waitForJobs([id], (j) => j.state === "cancelled", 15_000);
    expect(jobs.get(id)!.result).toBeNull();
    await waitUntil(() => processesOfJob(id).length === 0, 10_000, () => `processes of job ${id} still running`);
    expect(git(repos[1]!, "branch", "--list", `cairn/${id}`).trim()).toBe("");
    const result = await fleet(["result", id]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`job ${id}: cancelled`);
    // A job cancelled before it starts never runs.
    const waiting = await fleet(["add", "--repo", repos[1]!, ...runFlags(), "--", "job=never-run: write never-run.txt"]);
    const waitingId = waiting.stdout.trim();
    await fleet(["cancel", waitingId]);
    await waitForJobs([waitingId], (j) => j.state === "cancelled", 15_000);
    await sleep(500);
    expect(seen.has("never-run")).toBe(false);
  }, 60_000);

  it("a 429 fails the run, the job is retried with backoff, and every worker holds back from that provider meanwhile", async () => {
    limitOnce.add("limited");
    const id = await add(repos[2]!, "limited", ["--retries", "0"]);
    await waitUntil(() => (seen.get("limited")?.length ?? 0) > 0, 20_000, () => "the job never reached the model");
    const limitedAt = seen.get("limited")![0]!.at;
    // A job added right after the 429, whichever worker takes it, waits out the shared pause.
    const bystander = await add(repos[2]!, "bystander");
    const jobs = await waitForJobs([id, bystander], (j) => j.state === "completed", 30_000);
    expect(jobs.get(id)!.result!.outcome).toBe("success");
    expect(jobs.get(id)!.result!.attempt).toBe(2);
    expect(seen.get("limited")!.filter((r) => r.first).map((r) => r.answer)).toEqual(["429", "ok"]);
    expect(seen.get("bystander")![0]!.at - limitedAt).toBeGreaterThanOrEqual(1400);
    expect(seen.get("limited")![1]!.at - limitedAt).toBeGreaterThanOrEqual(1400);
    const watch = await fleet(["watch", id]);
    expect(watch.stdout).toMatch(/── retrying: .*(429|rate)/i);
    expect(watch.stdout).toMatch(/── attempt 2 on w\d/);
  }, 60_000);

  it("Redis stopped and started again mid-batch: every job still finishes, once", async () => {
    const names = Array.from({ length: 6 }, (_, i) => `outage-${i}`);
    const ids: string[] = [];
    for (const [i, name] of names.entries()) ids.push(await add(repos[i % 3]!, name));
    await waitUntil(async () => (await status()).filter((j) => ids.includes(j.id) && j.state === "completed").length >= 2, 40_000, () => "no job finished", 1000);
    await redis.stop();
    const down = await runCairn(["fleet", "status"], { env: env() });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain(`cannot reach Redis at ${redis.url}`);
    await sleep(1000);
    await redis.start();
    const jobs = await waitForJobs(ids, (j) => j.state === "completed", 60_000);
    ids.forEach((id, i) => {
      expect(jobs.get(id)!.result!.outcome).toBe("success");
      expect(git(repos[i % 3]!, "show", `cairn/${id}:${names[i]}.txt`)).toBe(`written by job ${names[i]}\n`);
    });
  }, 120_000);
});
