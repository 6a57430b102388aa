import type { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { UsageError } from "../usage-error.js";
import { fleetResultSchema, type FleetResult } from "./fleet-job.js";
import { fleetKeys } from "./fleet-keys.js";

/** A job as a person follows it: where it is, and what came of it. */
export type JobView = {
  id: string;
  /** BullMQ's state (waiting, active, delayed, completed, failed), or cancelled / cancelling. */
  state: string;
  repo: string;
  ref: string | null;
  task: string;
  batch: string | null;
  attempts: number;
  /** The worker that holds the job, or last held it (null before any took it). */
  worker: string | null;
  result: FleetResult | null;
  failed_reason: string | null;
};

export const listedStates = ["active", "waiting", "delayed", "prioritized", "paused", "completed", "failed"] as const;

export async function viewOf(job: Job, redis: Redis): Promise<JobView> {
  const bullState = await job.getState();
  const cancelMarked = (await redis.exists(fleetKeys.cancel(job.id!))) === 1;
  const cancelled = (bullState === "failed" && job.failedReason === "cancelled") || (cancelMarked && bullState !== "completed");
  const state = cancelled ? (bullState === "active" ? "cancelling" : "cancelled") : bullState;
  const parsed = fleetResultSchema.safeParse(job.returnvalue);
  const data = (job.data ?? {}) as Record<string, unknown>;
  return {
    id: job.id!,
    state,
    repo: String(data.repo ?? ""),
    ref: typeof data.ref === "string" ? data.ref : null,
    task: String(data.task ?? ""),
    batch: typeof data.batch === "string" ? data.batch : null,
    attempts: job.attemptsStarted,
    worker: job.processedBy ?? (parsed.success ? parsed.data.worker : null),
    result: bullState === "completed" && parsed.success ? parsed.data : null,
    failed_reason: bullState === "failed" ? (job.failedReason ?? null) : null,
  };
}

export async function findJob(queue: Queue, id: string | undefined, usage: string): Promise<Job> {
  if (id === undefined || id.startsWith("-")) throw new UsageError(`Usage: ${usage}`);
  const job = await queue.getJob(id);
  if (!job) throw new UsageError(`No job ${id} in this queue; cairn fleet status lists them.`);
  return job;
}
