import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCairn, startCairn } from "../support/cairn-cli.js";
import { git, processesOfJob, startFleet, waitUntil, type Fleet } from "../support/fleet-harness.js";

/**
 * `cairn fleet` for real: a redis-server on a free port, worker processes (`cairn fleet worker`),
 * each job run by the real `cairn run` against the scripted model server, branches pushed into
 * real git repositories. Each task names its job ("job=<name>: …") so one server can answer every
 * job, whichever worker runs it and in whatever order.
 */

let f: Fleet;

beforeAll(async () => {
  f = await startFleet(["alpha", "beta", "gamma"]);
  await f.startWorker("w1");
  await f.startWorker("w2");
}, 60_000);

afterAll(async () => {
  await f?.stop();
});

describe("cairn fleet", () => {
  it("says in one line when Redis cannot be reached", async () => {
    const run = await runCairn(["fleet", "status"], { env: f.env({ CAIRN_REDIS_URL: "redis://127.0.0.1:1" }) });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*ECONNREFUSED.*CAIRN_REDIS_URL/);
  });

  it("fleet add refuses, in one line and before Redis, a repository or ref a worker would refuse; a good one goes on to Redis", async () => {
    const bad = [
      ["--repo", f.repos[0]!, "--ref=--upload-pack=touch", "--", "t"],
      ["--repo", "-u@host:repo", "--", "t"],
      ["--repo", "https://-oProxyCommand=x/repo", "--", "t"],
    ];
    for (const args of bad) {
      // A Redis that is not there: the refusal must come before any connection is tried.
      const run = await runCairn(["fleet", "add", ...args], { env: f.env({ CAIRN_REDIS_URL: "redis://127.0.0.1:1" }) });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).not.toContain("cannot reach Redis");
    }
    const good = await runCairn(["fleet", "add", "--repo", f.repos[0]!, "--ref", "main", "--", "t"], { env: f.env({ CAIRN_REDIS_URL: "redis://127.0.0.1:1" }) });
    expect(good.stderr).toContain("cannot reach Redis");
  });

  it("cairn fleet secret: prints this machine's secret (made once, mode 600), --new replaces it, and a readable or short one is refused in one line", async () => {
    const home = path.join(f.root.dir, "secret-home");
    const env = f.env({ CAIRN_HOME: home, CAIRN_FLEET_SECRET: "" });
    const first = await runCairn(["fleet", "secret"], { env });
    expect(first.code, first.stderr).toBe(0);
    const secret = first.stdout.trim();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path.join(home, "fleet-secret"), "utf8").trim()).toBe(secret);
    expect(statSync(path.join(home, "fleet-secret")).mode & 0o777).toBe(0o600);
    expect(first.stderr).toMatch(/^Made the fleet secret [0-9a-f]{8} .*CAIRN_FLEET_SECRET=<it>/);
    expect((await runCairn(["fleet", "secret"], { env })).stdout.trim()).toBe(secret);
    const renewed = await runCairn(["fleet", "secret", "--new"], { env });
    expect(renewed.stdout.trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(renewed.stdout.trim()).not.toBe(secret);
    // The environment's secret wins, and is changed there, not here.
    const fromEnv = await runCairn(["fleet", "secret", "--new"], { env: f.env({ CAIRN_HOME: home }) });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/comes from CAIRN_FLEET_SECRET; change it there/);
    expect((await runCairn(["fleet", "secret"], { env: f.env({ CAIRN_HOME: home }) })).stdout.trim()).toBe(f.fleetSecret);
    chmodSync(path.join(home, "fleet-secret"), 0o644);
    const readable = await runCairn(["fleet", "add", "--repo", f.repos[0]!, "--", "job=x: never"], { env });
    expect(readable.code).toBe(2);
    expect(readable.stderr.trim().split("\n")).toHaveLength(1);
    expect(readable.stderr).toMatch(/fleet-secret can be read by other users; chmod 600 it/);
    const short = await runCairn(["fleet", "worker"], { env: f.env({ CAIRN_HOME: home, CAIRN_FLEET_SECRET: "too-short" }) });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/The fleet secret in CAIRN_FLEET_SECRET is shorter than 32 characters; run cairn fleet secret/);
  }, 60_000);

  it("runs 20 jobs over 3 repositories on two workers and pushes each job's branch", async () => {
    const names = Array.from({ length: 20 }, (_, i) => `batch-${i}`);
    const tasks = path.join(f.root.dir, "tasks.jsonl");
    writeFileSync(tasks, names.map((name, i) => JSON.stringify({ repo: f.repos[i % 3], task: `job=${name}: write ${name}.txt`, options: { "max-turns": 4 } })).join("\n") + "\n");
    const added = await f.fleet(["add", "--tasks", tasks, ...f.runFlags()]);
    expect(added.code, added.stderr).toBe(0);
    const ids = added.stdout.trim().split("\n");
    expect(ids).toHaveLength(20);

    const jobs = await f.waitForJobs(ids, (j) => j.state === "completed", 100_000);
    const byWorker = new Set<string>();
    ids.forEach((id, i) => {
      const job = jobs.get(id)!;
      expect(job.result!.outcome).toBe("success");
      expect(job.result!.branch).toBe(`cairn/${id}`);
      expect(job.result!.files_changed).toEqual([`${names[i]}.txt`]);
      byWorker.add(job.result!.worker);
      // The branch is in the repository the job named, with the job's file; main is untouched.
      expect(git(f.repos[i % 3]!, "show", `cairn/${id}:${names[i]}.txt`)).toBe(`written by job ${names[i]}\n`);
      expect(git(f.repos[i % 3]!, "log", "--format=%s", "-1", `cairn/${id}`)).toContain(`cairn fleet job ${id}`);
    });
    expect(byWorker).toEqual(new Set(["w1", "w2"]));
    for (const repo of f.repos) expect(git(repo, "ls-tree", "--name-only", "main").trim()).toBe("README.md");
    for (const name of names) expect(f.seen.get(name)!.filter((r) => r.first)).toHaveLength(1);

    const result = await f.fleet(["result", ids[0]!]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`branch: cairn/${ids[0]} pushed to ${f.repos[0]}`);
    expect(result.stdout).toContain("files: batch-0.txt");
    expect(result.stdout).toContain("wrote batch-0.txt");
    // The job's events outlive it, in Redis, for any machine to read.
    const watch = await f.fleet(["watch", ids[0]!]);
    expect(watch.code, watch.stderr).toBe(0);
    expect(watch.stdout).toMatch(/── attempt 1 on w[12]/);
    expect(watch.stdout).toContain("batch-0.txt");
    expect(watch.stdout).toContain(`── completed: success, cairn/${ids[0]}`);
  }, 120_000);

  it("a worker killed with SIGKILL mid-job: its run ends with it, and another worker completes the job once", async () => {
    f.behaviour.hangOnce.add("killed");
    const id = await f.add(f.repos[0]!, "killed");
    await waitUntil(() => (f.seen.get("killed")?.length ?? 0) > 0, 20_000, () => "the job never reached the model");
    const holder = f.workers.find((w) => w.output().stdout.includes(`${id}: started`))!;
    expect(holder).toBeDefined();
    expect(processesOfJob(id).length).toBeGreaterThan(0); // positive control: the run is there to be found
    holder.child.kill("SIGKILL");
    await holder.exited;
    const killedAt = Date.now();
    // The run guard sees its pipe close and ends the run and what it started.
    await waitUntil(() => processesOfJob(id).length === 0, 10_000, () => `processes of job ${id} still running: ${processesOfJob(id).join(", ")}`);

    const jobs = await f.waitForJobs([id], (j) => j.state === "completed", 30_000);
    const job = jobs.get(id)!;
    const other = f.workers.find((w) => w !== holder && w.child.exitCode === null)!;
    expect(job.result!.outcome).toBe("success");
    expect(job.result!.worker).toBe(other.name);
    expect(job.attempts).toBe(2);
    expect(git(f.repos[0]!, "show", `cairn/${id}:killed.txt`)).toBe("written by job killed\n");
    expect(git(f.repos[0]!, "rev-list", "--count", `main..cairn/${id}`).trim()).toBe("1");
    // Never twice at once: the second run reached the model only after the first worker was dead.
    const firsts = f.seen.get("killed")!.filter((r) => r.first);
    expect(firsts.map((r) => r.answer)).toEqual(["hang", "ok"]);
    expect(firsts[1]!.at).toBeGreaterThanOrEqual(killedAt);
    // Recorded once: one completion, by the worker that finished it.
    expect(other.output().stdout.match(new RegExp(`${id}: success`, "g"))).toHaveLength(1);

    await f.startWorker("w3"); // two workers again for what follows
  }, 90_000);

  it("a worker frozen mid-job (SIGSTOP): its run is stopped before another worker takes the job up, so it never runs twice at once", async () => {
    f.behaviour.hangOnce.add("frozen");
    const id = await f.add(f.repos[2]!, "frozen");
    await waitUntil(() => (f.seen.get("frozen")?.length ?? 0) > 0, 20_000, () => "the job never reached the model");
    const holder = f.workers.find((w) => w.child.exitCode === null && w.output().stdout.includes(`${id}: started`))!;
    const firstRun = processesOfJob(id);
    expect(firstRun.length).toBeGreaterThan(0);
    holder.child.kill("SIGSTOP");
    try {
      // The run guard hears nothing from its worker and ends the run.
      await waitUntil(() => firstRun.every((pid) => !processesOfJob(id).includes(pid)), 15_000, () => `the frozen worker's run is still there: ${processesOfJob(id).join(", ")}`);
      const stoppedAt = Date.now();
      const jobs = await f.waitForJobs([id], (j) => j.state === "completed", 30_000);
      expect(jobs.get(id)!.result!.outcome).toBe("success");
      expect(jobs.get(id)!.result!.worker).not.toBe(holder.name);
      const firsts = f.seen.get("frozen")!.filter((r) => r.first);
      expect(firsts.map((r) => r.answer)).toEqual(["hang", "ok"]);
      expect(firsts[1]!.at).toBeGreaterThanOrEqual(stoppedAt - 250); // the second run started after the first had ended
    } finally {
      holder.child.kill("SIGCONT");
    }
    // Woken up, the frozen worker records nothing for the job and goes on working.
    await waitUntil(() => new RegExp(`${id}: (lost its lock|will retry)`).test(holder.output().stdout), 10_000, () => holder.output().stdout);
    expect(holder.output().stdout).not.toContain(`${id}: success`);
    const next = await f.add(f.repos[2]!, "after-thaw");
    await f.waitForJobs([next], (j) => j.state === "completed", 30_000);
  }, 90_000);

  it("cancel stops a running job: its run ends, nothing is pushed, and it shows as cancelled", async () => {
    f.behaviour.hangAlways.add("cancelled");
    const id = await f.add(f.repos[1]!, "cancelled");
    await waitUntil(() => (f.seen.get("cancelled")?.length ?? 0) > 0 && processesOfJob(id).length > 0, 20_000, () => "the job never started");
    // Someone follows the job live from another machine: its events arrive as they happen, up to its end.
    const watch = startCairn(["fleet", "watch", id], { env: f.env() });
    await watch.waitForLine((line) => /── attempt 1 on w\d/.test(line));
    const cancel = await f.fleet(["cancel", id]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain(`${id}: cancelling`);
    const jobs = await f.waitForJobs([id], (j) => j.state === "cancelled", 15_000);
    expect(jobs.get(id)!.result).toBeNull();
    await waitUntil(() => processesOfJob(id).length === 0, 10_000, () => `processes of job ${id} still running`);
    expect(git(f.repos[1]!, "branch", "--list", `cairn/${id}`).trim()).toBe("");
    const result = await f.fleet(["result", id]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`job ${id}: cancelled`);
    expect(await watch.exited).toBe(1);
    expect(watch.output().stdout.trim().split("\n").at(-1)).toBe("── cancelled");
  }, 60_000);

  it("a 429 fails the run, the job is retried with backoff, and every worker holds back from that provider meanwhile", async () => {
    f.behaviour.limitOnce.add("limited");
    const id = await f.add(f.repos[2]!, "limited", ["--retries", "0"]);
    await waitUntil(() => (f.seen.get("limited")?.length ?? 0) > 0, 20_000, () => "the job never reached the model");
    const limitedAt = f.seen.get("limited")![0]!.at;
    // A job added right after the 429, whichever worker takes it, waits out the shared pause.
    const bystander = await f.add(f.repos[2]!, "bystander");
    const jobs = await f.waitForJobs([id, bystander], (j) => j.state === "completed", 30_000);
    expect(jobs.get(id)!.result!.outcome).toBe("success");
    expect(jobs.get(id)!.result!.attempt).toBe(2);
    expect(f.seen.get("limited")!.filter((r) => r.first).map((r) => r.answer)).toEqual(["429", "ok"]);
    expect(f.seen.get("bystander")![0]!.at - limitedAt).toBeGreaterThanOrEqual(1400);
    expect(f.seen.get("limited")![1]!.at - limitedAt).toBeGreaterThanOrEqual(1400);
    const watch = await f.fleet(["watch", id]);
    expect(watch.stdout).toMatch(/── retrying: .*(429|rate)/i);
    expect(watch.stdout).toMatch(/── attempt 2 on w\d/);
  }, 60_000);

  it("Redis stopped and started again mid-batch: every job still finishes, once", async () => {
    const names = Array.from({ length: 6 }, (_, i) => `outage-${i}`);
    const ids: string[] = [];
    for (const [i, name] of names.entries()) ids.push(await f.add(f.repos[i % 3]!, name));
    await waitUntil(async () => (await f.status()).filter((j) => ids.includes(j.id) && j.state === "completed").length >= 2, 40_000, () => "no job finished", 1000);
    await f.redis.stop();
    const down = await runCairn(["fleet", "status"], { env: f.env() });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain(`cannot reach Redis at ${f.redis.url}`);
    await sleep(1000);
    await f.redis.start();
    const jobs = await f.waitForJobs(ids, (j) => j.state === "completed", 60_000);
    ids.forEach((id, i) => {
      expect(jobs.get(id)!.result!.outcome).toBe("success");
      expect(git(f.repos[i % 3]!, "show", `cairn/${id}:${names[i]}.txt`)).toBe(`written by job ${names[i]}\n`);
    });
  }, 120_000);
});
