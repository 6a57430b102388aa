import { rmSync } from "node:fs";
import { UnrecoverableError, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { eventWriter } from "@cairn/host/fleet/event-stream";
import { fleetKeys, retentionSeconds } from "@cairn/host/fleet/fleet-keys";
import { transientErrorKinds, type FleetResult } from "@cairn/host/fleet/fleet-job";
import { admitJob } from "./admit-job.js";
import { checkout, commitAndPush } from "./checkout.js";
import { runCairnChild, type RunEvent } from "./child-run.js";
import { mirrorDir, scratchDir } from "./fleet-folders.js";
import type { FleetSecret } from "./fleet-secret.js";
import type { WorkerPolicy } from "./job-policy.js";
import { branchFor } from "./job-id.js";
import { printableLine } from "./printable.js";
import { pauseProvider, takeProviderPlace, waitForProvider } from "./provider-gate.js";

export type WorkerContext = {
  redis: Redis;
  name: string;
  /** Mirrors of repositories (kept) and scratch checkouts (one per running job, removed after); see fleet-folders.ts. */
  cacheDir: string;
  /** At most this many jobs at once per provider, across every worker (none: no cap). */
  providerCaps: ReadonlyMap<string, number>;
  /** How long every worker holds back from a provider after a 429 that named no retry-after. */
  rateLimitPauseMs: number;
  /** Jobs are run only when signed with this secret (see fleet-secret.ts). */
  secret: FleetSecret;
  /** What jobs may ask of this worker (see job-policy.ts). */
  policy: WorkerPolicy;
  /** The job lock's duration: a run whose worker goes quiet for most of it is stopped (see run-guard.ts). */
  lockMs: number;
  log: (line: string) => void;
};

/** Why a run was stopped from outside: asked by `fleet cancel`, out of time, or the job's lock lost to another worker. */
export type StopReason = "cancelled" | "timed_out" | "lock_lost";

const short = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Providers answer 429 to too many requests and 529 (or 503) when overloaded: either way, everyone slows down. */
function isRateLimit(event: RunEvent): boolean {
  if (event.type === "system" && event.subtype === "api_retry") return event.error_status === 429 || event.error_status === 529;
  return event.type === "error" && (event.kind === "rate_limit" || event.kind === "overloaded");
}

/**
 * One job on one worker: admit it (its id, signature and options against this worker's policy; see
 * admit-job.ts) or refuse it before it touches anything, then wait for the provider's turn, check the repository out, run the task as a
 * child `cairn run`, forward its events to the job's stream, commit and push what changed, and
 * return the result. A passing failure (429, overload, network) is thrown, for BullMQ to retry with
 * backoff; anything else is the job's result, or an UnrecoverableError that ends it.
 */
export async function processJob(job: Job, ctx: WorkerContext, stop: AbortController): Promise<FleetResult> {
  const admission = admitJob(job, ctx.secret, ctx.policy);
  if (!admission.ok) return await refuse(job, ctx, admission.jobId, admission.reason);
  const { jobId, data, runArgs } = admission;
  const attempt = job.attemptsStarted;
  const started = Date.now();
  const events = eventWriter(ctx.redis, jobId);
  const note = (event: Record<string, unknown>) => events.append({ type: "fleet", worker: ctx.name, attempt, at: new Date().toISOString(), ...event } as RunEvent);
  const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

  const provider = runArgs.provider ?? process.env.CAIRN_PROVIDER ?? "default";
  const flags = [...data.run_flags];

  const result = (outcome: string, fields: Partial<FleetResult>): FleetResult => ({
    outcome,
    exit_code: null,
    answer: "",
    branch: null,
    pushed_to: null,
    files_changed: [],
    tokens: { input: 0, output: 0 },
    cost_usd: null,
    worker: ctx.name,
    attempt,
    duration_ms: Date.now() - started,
    ...fields,
  });
  const end = async (state: string, fields: Record<string, unknown> = {}) => {
    note({ subtype: "end", state, ...fields });
    await events.flush();
  };

  if (await ctx.redis.exists(fleetKeys.cancel(jobId))) {
    await end("cancelled");
    throw new UnrecoverableError("cancelled");
  }

  note({ subtype: "started", repo: data.repo, ref: data.ref ?? null, task: data.task });
  ctx.log(`${jobId}: started (attempt ${attempt}) ${printableLine(data.repo)} "${printableLine(short(data.task))}"`);
  if (data.timeout_s !== undefined) {
    const timer = setTimeout(() => stop.abort("timed_out" satisfies StopReason), data.timeout_s * 1000);
    stop.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  }
  const waited = await waitForProvider(ctx.redis, provider, stop.signal).catch(() => 0);
  if (waited > 0) note({ subtype: "provider_paused", provider, waited_ms: waited });
  const cap = ctx.providerCaps.get(provider);
  const release = cap === undefined ? async () => {} : await takeProviderPlace(ctx.redis, provider, cap, jobId, stop.signal).catch(() => async () => {});

  const branch = branchFor(jobId);
  const scratch = scratchDir(ctx.cacheDir, jobId);
  try {
    if (stop.signal.aborted) return await stopped(stop.signal.reason as StopReason);
    // Checked once the job may start (after waiting for the provider), so the batch's earlier jobs
    // have recorded their cost. Jobs running at once may each spend what was left when they started.
    if (data.batch_budget_usd !== undefined) {
      const spent = Number((await ctx.redis.get(fleetKeys.batchSpent(data.batch))) ?? 0);
      const left = data.batch_budget_usd - spent;
      if (left <= 0) {
        const skipped = result("skipped_budget", { answer: `Not started: the batch has spent $${spent.toFixed(4)} of its $${data.batch_budget_usd} budget.` });
        await end("completed", { outcome: skipped.outcome });
        ctx.log(`${jobId}: skipped, the batch's budget is spent`);
        return skipped;
      }
      // The run stops before a request once it has cost what the batch has left.
      flags.push("--max-budget-usd", String(Math.min(left, runArgs.maxBudgetUsd ?? Infinity)));
    }
    let work;
    try {
      work = await checkout(data.repo, data.ref, branch, mirrorDir(ctx.cacheDir, ctx.secret.value, data.repo), scratch);
    } catch (error) {
      const reason = firstLine(error);
      await end(finalAttempt ? "failed" : "retrying", { reason: `checkout failed: ${reason}` });
      throw new Error(`cannot check out ${data.repo}${data.ref ? ` at ${data.ref}` : ""}: ${reason}`);
    }
    const run = await runCairnChild(flags, data.task, work.dir, stop.signal, (event) => {
      events.append(event);
      if (isRateLimit(event)) {
        const delay = typeof event.retry_delay_ms === "number" && event.retry_delay_ms > 0 ? event.retry_delay_ms : ctx.rateLimitPauseMs;
        void pauseProvider(ctx.redis, provider, delay).catch(() => {});
      }
    }, ctx.lockMs * 0.75);
    if (stop.signal.aborted) return await stopped(stop.signal.reason as StopReason, run.result);
    // A worker that was frozen (or cut off from Redis) past its lock finds its run ended by the run
    // guard before it hears that the lock is gone: the lock itself says whether the job is still ours.
    if (!(await holdsLock())) return await stopped("lock_lost", run.result);

    const errorKind = typeof run.lastError?.kind === "string" ? run.lastError.kind : undefined;
    if (run.result === undefined || (run.result.subtype === "error_during_execution" && errorKind !== undefined && transientErrorKinds.has(errorKind))) {
      const reason = run.lastError?.message ?? (lastLine(run.stderrTail) || `cairn run ended with code ${run.exitCode} and no result`);
      if (errorKind !== undefined && (errorKind === "rate_limit" || errorKind === "overloaded")) await pauseProvider(ctx.redis, provider, ctx.rateLimitPauseMs).catch(() => {});
      // Exit code 2 is bad usage or configuration (a missing key): another try would fail the same way.
      if (run.result === undefined && run.exitCode === 2) {
        await end("failed", { reason });
        throw new UnrecoverableError(`cairn run refused the job: ${reason}`);
      }
      await end(finalAttempt ? "failed" : "retrying", { reason: String(reason) });
      ctx.log(`${jobId}: ${finalAttempt ? "failed" : "will retry"}: ${printableLine(short(String(reason), 120))}`);
      throw new Error(String(reason));
    }

    const files = await commitAndPush(work, data.repo, branch, `cairn fleet job ${jobId}: ${short(data.task, 70)}`);
    const done = fromRun(run.result, run.exitCode, files.length > 0 ? { branch, pushed_to: data.repo } : {}, files);
    if (done.cost_usd !== null && data.batch_budget_usd !== undefined) {
      await ctx.redis.incrbyfloat(fleetKeys.batchSpent(data.batch), done.cost_usd);
      await ctx.redis.expire(fleetKeys.batchSpent(data.batch), retentionSeconds);
    }
    await end("completed", { outcome: done.outcome, branch: done.branch });
    ctx.log(`${jobId}: ${done.outcome} in ${(done.duration_ms / 1000).toFixed(1)}s${done.branch ? `, ${done.branch} (${files.length} file${files.length === 1 ? "" : "s"})` : ", no changes"}`);
    return done;
  } finally {
    await release();
    rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    await events.flush().catch(() => {});
  }

  /** Whether this worker still holds the job's lock (BullMQ's lock key holds the token of the worker that has it). */
  async function holdsLock(): Promise<boolean> {
    if (!job.token) return true;
    return (await ctx.redis.get(`${job.queueQualifiedName}:${jobId}:lock`)) === job.token;
  }

  async function stopped(reason: StopReason, runResult?: RunEvent): Promise<FleetResult> {
    if (reason === "timed_out") {
      const limit = data.timeout_s ?? 0;
      const timedOut = result("timed_out", { ...(runResult ? usageOf(runResult) : {}), answer: `Stopped after the job's time limit of ${limit}s.` });
      await end("completed", { outcome: timedOut.outcome });
      ctx.log(`${jobId}: timed out after ${limit}s`);
      return timedOut;
    }
    if (reason === "lock_lost") {
      // Another worker may hold the job now: this run stops, and records nothing (BullMQ would refuse it anyway).
      note({ subtype: "lock_lost" });
      await events.flush();
      ctx.log(`${jobId}: lost its lock to another worker; run stopped`);
      throw new Error("lock lost");
    }
    await end("cancelled");
    ctx.log(`${jobId}: cancelled`);
    throw new UnrecoverableError("cancelled");
  }

  function fromRun(run: RunEvent, exitCode: number | null, pushed: { branch?: string; pushed_to?: string }, files: string[]): FleetResult {
    return result(String(run.subtype), { exit_code: exitCode, answer: typeof run.result === "string" ? run.result : "", files_changed: files, ...usageOf(run), ...pushed });
  }
}

/**
 * A job this worker will not run: failed for good, with the reason as its one line (in `fleet
 * status`, its events and this worker's log). A job whose id is not a job id gets no event stream:
 * its id is used for nothing, not even a Redis key.
 */
async function refuse(job: Job, ctx: WorkerContext, jobId: string | undefined, why: string): Promise<never> {
  // The reason quotes what Redis held (an id, a key name): printable, as everything else from the queue.
  const reason = `refused: ${printableLine(why)}`;
  if (jobId !== undefined) {
    const events = eventWriter(ctx.redis, jobId);
    events.append({ type: "fleet", worker: ctx.name, attempt: job.attemptsStarted, at: new Date().toISOString(), subtype: "end", state: "failed", reason });
    await events.flush().catch(() => {});
  }
  ctx.log(`${jobId ?? printableLine(JSON.stringify(job.id))}: ${reason}`);
  throw new UnrecoverableError(reason);
}

function usageOf(run: RunEvent): Pick<FleetResult, "tokens" | "cost_usd"> {
  const usage = (run.usage ?? {}) as { input_tokens?: number; output_tokens?: number };
  return { tokens: { input: usage.input_tokens ?? 0, output: usage.output_tokens ?? 0 }, cost_usd: typeof run.total_cost_usd === "number" ? run.total_cost_usd : null };
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? ((error as { stderr?: string }).stderr || error.message) : String(error);
  return text.trim().split("\n")[0] ?? "";
}

/** The line of a crashed run's stderr that says what went wrong (node ends a crash with its version). */
function lastLine(text: string): string {
  const lines = text.trim().split("\n").filter((l) => l.trim() !== "" && !/^Node\.js v\d/.test(l) && !/^\s+at /.test(l));
  return lines.find((l) => /^(cairn:|\w*Error\b)/.test(l)) ?? lines.at(-1) ?? "";
}
