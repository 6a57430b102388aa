import type { Io } from "../headless.js";
import { UsageError } from "../usage-error.js";
import { fleetKeys, retentionSeconds } from "./fleet-keys.js";
import { findJob } from "./job-view.js";
import { openQueue } from "./open-queue.js";

/**
 * `cairn fleet cancel <job>`: marks the job cancelled in Redis. A waiting job is never started; a
 * running one is stopped by its worker within a second (the run and its commands end, nothing is
 * pushed).
 */
export async function cancelCommand(argv: string[], io: Io): Promise<number> {
  const { queue, redis, close } = await openQueue(io.env);
  try {
    const job = await findJob(queue, argv[0], "cairn fleet cancel <job>");
    const state = await job.getState();
    if (state === "completed" || state === "failed") throw new UsageError(`Job ${job.id} has already ${state === "completed" ? "finished" : "failed"}; nothing to cancel.`);
    await redis.set(fleetKeys.cancel(job.id!), String(Date.now()), "EX", retentionSeconds);
    io.stdout(`${job.id}: ${state === "active" ? "cancelling (its worker stops it within a second)" : "cancelled"}\n`);
    return 0;
  } finally {
    await close();
  }
}

/** `cairn fleet retry <job>`: runs a failed, cancelled or finished job again, from a fresh checkout. */
export async function retryCommand(argv: string[], io: Io): Promise<number> {
  const { queue, redis, close } = await openQueue(io.env);
  try {
    const job = await findJob(queue, argv[0], "cairn fleet retry <job>");
    const state = await job.getState();
    if (state !== "completed" && state !== "failed") {
      if (!(await redis.exists(fleetKeys.cancel(job.id!)))) throw new UsageError(`Job ${job.id} is ${state}; only a finished, failed or cancelled job can be retried.`);
      await redis.del(fleetKeys.cancel(job.id!)); // cancelled before it started: it simply stays queued
      io.stdout(`${job.id}: queued again\n`);
      return 0;
    }
    await redis.del(fleetKeys.cancel(job.id!));
    await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
    io.stdout(`${job.id}: queued again\n`);
    return 0;
  } finally {
    await close();
  }
}
