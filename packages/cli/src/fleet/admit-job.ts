import type { Job } from "bullmq";
import type { RunArgs } from "@cairn/host/run-args";
import { fleetJobSchema, type FleetJob } from "@cairn/host/fleet/fleet-job";
import type { FleetSecret } from "./fleet-secret.js";
import { policyRefusal, type WorkerPolicy } from "./job-policy.js";
import { isJobId } from "./job-id.js";
import { signatureProblem } from "./job-signature.js";
import { validateRunFlags } from "./run-flags.js";

export type Admission = { ok: true; jobId: string; data: FleetJob; runArgs: RunArgs } | { ok: false; reason: string; jobId: string | undefined };

/**
 * Whether a worker takes a job from the queue, decided before the job touches anything (a folder,
 * a branch, git, a provider): its id has the shape fleet add makes (it names a folder and a branch),
 * it is a fleet job, it is signed with this worker's secret, and its run options are within this
 * worker's policy. Whoever can write to Redis can put anything in the queue: this is where it stops.
 */
export function admitJob(job: Job, secret: FleetSecret, policy: WorkerPolicy): Admission {
  if (!isJobId(job.id)) return { ok: false, jobId: undefined, reason: `job id ${JSON.stringify(job.id)} is not one cairn fleet add makes` };
  const jobId = job.id;
  const parsed = fleetJobSchema.safeParse(job.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, jobId, reason: `not a cairn fleet job (${issue ? `${issue.path.join(".") || "data"}: ${issue.message}` : "bad data"})` };
  }
  const data = parsed.data;
  const unsigned = signatureProblem(secret.value, jobId, data, secret.fingerprint);
  if (unsigned !== undefined) return { ok: false, jobId, reason: unsigned };
  let runArgs: RunArgs;
  try {
    runArgs = validateRunFlags(data.run_flags).args;
  } catch (error) {
    return { ok: false, jobId, reason: `its run options are not valid: ${(error as Error).message.split("\n")[0]}` };
  }
  const refused = policyRefusal(runArgs, policy);
  if (refused !== undefined) return { ok: false, jobId, reason: refused };
  return { ok: true, jobId, data, runArgs };
}
