import { z } from "zod";

/**
 * One job as stored in the queue. `run_flags` are `cairn run` options, already validated by the
 * run parser when the job was added (the worker parses them again, and holds them to its own
 * policy: the queue is shared). No secret travels in a job: keys come from each worker's
 * environment. `signature` is fleet add's HMAC over every other field and the job's id
 * (job-signature.ts); strict, so no field can ride along unsigned.
 */
export const fleetJobSchema = z.strictObject({
  repo: z.string().min(1),
  ref: z.string().min(1).optional(),
  task: z.string().min(1),
  run_flags: z.array(z.string()),
  /** Seconds a job may run before the worker stops it. */
  timeout_s: z.number().positive().optional(),
  batch: z.string().min(1),
  /** Dollars the whole batch may spend; a job does not start once it is spent. */
  batch_budget_usd: z.number().positive().optional(),
  added_at: z.number(),
  /** Absent on a job no `fleet add` signed: the worker refuses it. */
  signature: z.string().optional(),
});
export type FleetJob = z.infer<typeof fleetJobSchema>;

/** What a worker records when a job's run ends (BullMQ keeps it as the job's return value). */
export const fleetResultSchema = z.object({
  /** success, needs_input, error_* from the run's result; timed_out and skipped_budget from the fleet. */
  outcome: z.string(),
  exit_code: z.number().nullable(),
  answer: z.string(),
  /** cairn/<job-id> when changes were pushed, else null. */
  branch: z.string().nullable(),
  pushed_to: z.string().nullable(),
  files_changed: z.array(z.string()),
  tokens: z.object({ input: z.number(), output: z.number() }),
  cost_usd: z.number().nullable(),
  worker: z.string(),
  attempt: z.number(),
  duration_ms: z.number(),
});
export type FleetResult = z.infer<typeof fleetResultSchema>;

/** Ends of a model request that another try may cure (the model layer's own retryable kinds). */
export const transientErrorKinds: ReadonlySet<string> = new Set(["rate_limit", "overloaded", "server", "network", "stream_cut", "timeout", "unreachable", "bad_output"]);
