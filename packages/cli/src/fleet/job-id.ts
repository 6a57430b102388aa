import { randomBytes } from "node:crypto";

/** Short, readable, and safe in a branch name: cairn/<job-id>. */
export function newJobId(): string {
  return randomBytes(5).toString("hex");
}

export function branchFor(jobId: string): string {
  return `cairn/${jobId}`;
}
