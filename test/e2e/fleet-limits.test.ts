import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, processesOfJob, startFleet, waitUntil, type Fleet } from "../support/fleet-harness.js";

/**
 * The fleet's limits, on one real worker that could run two jobs at once: a cap of one job at a
 * time on the provider (across workers, held in Redis), a time limit per job, a budget per batch.
 */

let f: Fleet;

beforeAll(async () => {
  f = await startFleet(["repo"]);
  f.behaviour.turnDelayMs = 300;
  await f.startWorker("solo", ["--concurrency", "2", "--provider-cap", "anthropic=1"]);
}, 60_000);

afterAll(async () => {
  await f?.stop();
});

describe("cairn fleet limits", () => {
  it("--provider-cap: two jobs on a worker that runs two at once still reach the provider one after the other", async () => {
    const a = await f.add(f.repos[0]!, "cap-a");
    const b = await f.add(f.repos[0]!, "cap-b");
    const jobs = await f.waitForJobs([a, b], (j) => j.state === "completed", 40_000);
    expect([...jobs.values()].map((j) => j.result!.outcome)).toEqual(["success", "success"]);
    const span = (name: string) => {
      const times = f.seen.get(name)!.map((r) => r.at);
      return { from: Math.min(...times), to: Math.max(...times) };
    };
    const [first, second] = [span("cap-a"), span("cap-b")].sort((x, y) => x.from - y.from);
    expect(second!.from).toBeGreaterThan(first!.to);
    // The worker did take both at once: both started before either finished (so the cap, not the worker, kept them apart).
    const log = f.workers[0]!.output().stdout;
    const at = (text: string) => log.indexOf(text);
    expect(Math.max(at(`${a}: started`), at(`${b}: started`))).toBeLessThan(Math.min(at(`${a}: success`), at(`${b}: success`)));
  }, 60_000);

  it("cancel: a job waiting for its turn on the provider is cancelled and never reaches the model", async () => {
    f.behaviour.hangAlways.add("holder");
    const holder = await f.add(f.repos[0]!, "holder");
    await waitUntil(() => f.seen.has("holder"), 20_000, () => "the first job never reached the model");
    const waiting = await f.add(f.repos[0]!, "never-run");
    await waitUntil(() => f.workers[0]!.output().stdout.includes(`${waiting}: started`), 10_000, () => "the worker did not take the second job");
    const cancel = await f.fleet(["cancel", waiting]);
    expect(cancel.code, cancel.stderr).toBe(0);
    await f.waitForJobs([waiting], (j) => j.state === "cancelled", 15_000);
    expect(await f.fleet(["cancel", holder])).toMatchObject({ code: 0 });
    await f.waitForJobs([holder], (j) => j.state === "cancelled", 15_000);
    expect(f.seen.has("never-run")).toBe(false);
    // Positive control: retried, the same job runs and completes.
    const retry = await f.fleet(["retry", waiting]);
    expect(retry.stdout).toContain(`${waiting}: queued again`);
    const jobs = await f.waitForJobs([waiting], (j) => j.state === "completed", 30_000);
    expect(jobs.get(waiting)!.result!.outcome).toBe("success");
    expect(f.seen.has("never-run")).toBe(true);
  }, 90_000);

  it("--timeout: a job past its time limit is stopped, its run ends, and nothing is pushed", async () => {
    f.behaviour.hangAlways.add("too-slow");
    const started = Date.now();
    const id = await f.add(f.repos[0]!, "too-slow", ["--timeout", "2"]);
    const jobs = await f.waitForJobs([id], (j) => j.state === "completed", 30_000);
    expect(jobs.get(id)!.result!.outcome).toBe("timed_out");
    expect(jobs.get(id)!.result!.answer).toContain("time limit of 2s");
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    await waitUntil(() => processesOfJob(id).length === 0, 10_000, () => `processes of job ${id} still running`);
    expect(git(f.repos[0]!, "branch", "--list", `cairn/${id}`).trim()).toBe("");
  }, 60_000);

  it("--batch-max-budget-usd: once a batch has spent its budget, its remaining jobs do not start", async () => {
    const tasks = path.join(f.root.dir, "budget.jsonl");
    const names = ["spend-1", "spend-2", "spend-3"];
    writeFileSync(tasks, names.map((name) => JSON.stringify({ repo: f.repos[0], task: `job=${name}: write ${name}.txt` })).join("\n"));
    // One scripted turn costs about two cents here: the first job spends the whole batch budget.
    const added = await f.fleet(["add", "--tasks", tasks, "--batch-max-budget-usd", "0.001", ...f.runFlags()]);
    expect(added.code, added.stderr).toBe(0);
    const ids = added.stdout.trim().split("\n");
    const jobs = await f.waitForJobs(ids, (j) => j.state === "completed", 40_000);
    const outcomes = ids.map((id) => jobs.get(id)!.result!.outcome);
    expect(outcomes.filter((o) => o === "skipped_budget")).toHaveLength(2);
    expect(outcomes.filter((o) => o === "error_max_budget_usd")).toHaveLength(1);
    // Only the one job that started reached the model, and it stopped after its first turn.
    const reached = names.filter((name) => f.seen.has(name));
    expect(reached).toHaveLength(1);
    expect(f.seen.get(reached[0]!)).toHaveLength(1);
    const skipped = ids.find((id) => jobs.get(id)!.result!.outcome === "skipped_budget")!;
    expect(jobs.get(skipped)!.result!.answer).toMatch(/Not started: the batch has spent \$0\.0\d+ of its \$0\.001 budget/);
  }, 60_000);
});
