import { randomBytes } from "node:crypto";

/**
 * Short, readable, and safe in a branch name: cairn/<job-id>. Never all digits: BullMQ keeps
 * integer ids for itself and refuses them as custom ids.
 */
export function newJobId(): string {
  for (;;) {
    const id = randomBytes(5).toString("hex");
    if (/[a-f]/.test(id)) return id;
  }
}

/**
 * Whether `id` has the shape newJobId makes. A worker names a folder and a branch after the job id,
 * and whoever can write to Redis chooses it: `../../x` would be a folder outside the worker's, so
 * anything else is refused before it is used.
 */
export function isJobId(id: unknown): id is string {
  return typeof id === "string" && /^[0-9a-f]{10}$/.test(id) && /[a-f]/.test(id);
}

export function branchFor(jobId: string): string {
  return `cairn/${jobId}`;
}
