import { describe, expect, it } from "vitest";
import type { FleetJob } from "@cairn/host/fleet/fleet-job";
import { signatureProblem, signJob } from "./job-signature.js";

const secret = "s".repeat(64);
const job: FleetJob = { repo: "/r", task: "fix it", run_flags: ["--max-turns", "3"], batch: "b0b0b0b0b0", added_at: 1_700_000_000_000, timeout_s: 60 };

describe("a job's signature", () => {
  it("holds for the job it was made for, under the secret it was made with", () => {
    const signed = { ...job, signature: signJob(secret, "a1a1a1a1a1", job) };
    expect(signatureProblem(secret, "a1a1a1a1a1", signed, "fp")).toBeUndefined();
    // The same job read back from Redis (JSON) still verifies.
    expect(signatureProblem(secret, "a1a1a1a1a1", JSON.parse(JSON.stringify(signed)) as FleetJob, "fp")).toBeUndefined();
  });

  it("breaks when any field, the id or the secret differs, and is missing on an unsigned job", () => {
    const signature = signJob(secret, "a1a1a1a1a1", job);
    const changed: FleetJob[] = [
      { ...job, run_flags: ["--max-turns", "3", "--yolo"] },
      { ...job, task: "fix it; and more" },
      { ...job, repo: "/other" },
      { ...job, ref: "main" },
      { ...job, timeout_s: 61 },
      { ...job, batch_budget_usd: 5 },
      { ...job, added_at: job.added_at + 1 },
    ];
    for (const other of changed) expect(signatureProblem(secret, "a1a1a1a1a1", { ...other, signature }, "fp"), JSON.stringify(other)).toMatch(/does not match this worker's fleet secret \(fp\)/);
    expect(signatureProblem(secret, "b2b2b2b2b2", { ...job, signature }, "fp")).toMatch(/does not match/);
    expect(signatureProblem("t".repeat(64), "a1a1a1a1a1", { ...job, signature }, "fp")).toMatch(/does not match/);
    expect(signatureProblem(secret, "a1a1a1a1a1", { ...job, signature: "00" }, "fp")).toMatch(/does not match/);
    expect(signatureProblem(secret, "a1a1a1a1a1", job, "fp")).toMatch(/^the job is not signed/);
  });
});
