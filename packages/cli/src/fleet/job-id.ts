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

export function branchFor(jobId: string): string {
  return `cairn/${jobId}`;
}
