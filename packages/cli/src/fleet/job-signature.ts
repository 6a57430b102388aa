import { createHmac, timingSafeEqual } from "node:crypto";
import type { FleetJob } from "@cairn/host/fleet/fleet-job";

/** Changes whenever what is signed changes shape, so an old signature never verifies by accident. */
const version = "cairn-fleet-job/1";

/**
 * What is signed: the job's id and every field of the job but the signature, by name, in name
 * order (a field added to the job later is covered without a change here). The id is in it, so a
 * signature cannot be moved onto another job, nor a job put under another id.
 */
function canonical(jobId: string, job: FleetJob): string {
  const fields = Object.entries(job)
    .filter(([key, value]) => key !== "signature" && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([version, jobId, fields]);
}

/** HMAC-SHA256 of the job under the fleet's secret, hex. */
export function signJob(secret: string, jobId: string, job: FleetJob): string {
  return createHmac("sha256", secret).update(canonical(jobId, job)).digest("hex");
}

/** Why the job's signature does not hold under this secret, or undefined when it does. */
export function signatureProblem(secret: string, jobId: string, job: FleetJob, fingerprint: string): string | undefined {
  if (job.signature === undefined) return "the job is not signed (cairn fleet add signs every job it adds; anyone else who writes to Redis cannot)";
  const expected = Buffer.from(signJob(secret, jobId, job), "hex");
  const given = Buffer.from(job.signature, "hex");
  if (given.length === expected.length && timingSafeEqual(given, expected)) return undefined;
  return `the job's signature does not match this worker's fleet secret (${fingerprint}): it was changed after it was added, or signed with another secret; give every machine the same secret (see cairn fleet secret)`;
}
