import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { UsageError } from "../usage-error.js";
import { fleetKeys, retentionSeconds } from "./fleet-keys.js";
import { findJob } from "./job-view.js";

/**
 * Marks a job cancelled in Redis. A waiting job is never started; a running one is stopped by its
 * worker within a second (the run and its commands end, nothing is pushed). Returns the line a
 * person reads; a job that cannot be cancelled is a UsageError that says why.
 */
export async function cancelJob(queue: Queue, redis: Redis, id: string | undefined): Promise<string> {
  const job = await findJob(queue, id, "cairn fleet cancel <job>");
  const state = await job.getState();
  if (state === "completed" || state === "failed") throw new UsageError(`Job ${job.id} has already ${state === "completed" ? "finished" : "failed"}; nothing to cancel.`);
  await redis.set(fleetKeys.cancel(job.id!), String(Date.now()), "EX", retentionSeconds);
  return `${job.id}: ${state === "active" ? "cancelling (its worker stops it within a second)" : "cancelled"}`;
}

/** Queues a failed, cancelled or finished job again, to run from a fresh checkout. */
export async function retryJob(queue: Queue, redis: Redis, id: string | undefined): Promise<string> {
  const job = await findJob(queue, id, "cairn fleet retry <job>");
  const state = await job.getState();
  if (state !== "completed" && state !== "failed") {
    if (!(await redis.exists(fleetKeys.cancel(job.id!)))) throw new UsageError(`Job ${job.id} is ${state}; only a finished, failed or cancelled job can be retried.`);
    await redis.del(fleetKeys.cancel(job.id!)); // cancelled before it started: it simply stays queued
    return `${job.id}: queued again`;
  }
  await redis.del(fleetKeys.cancel(job.id!));
  await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
  return `${job.id}: queued again`;
}
