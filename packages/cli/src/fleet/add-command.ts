import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { cairnHome } from "@cairn/core";
import { Queue } from "bullmq";
import { z } from "zod";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";
import { fleetKeys, queueName, retentionSeconds } from "@cairn/host/fleet/fleet-keys";
import type { FleetJob } from "@cairn/host/fleet/fleet-job";
import { connectOnce, redisUrl, shownRedisUrl } from "@cairn/host/fleet/redis-connection";
import { refProblem, repoProblem } from "@cairn/host/fleet/git-target";
import { fleetSecret } from "./fleet-secret.js";
import { newJobId } from "./job-id.js";
import { signJob } from "./job-signature.js";
import { takeFlags } from "./take-flags.js";
import { flagsFromOptions, validateRunFlags } from "./run-flags.js";

export const addHelp = `Usage: cairn fleet add --repo <git url or path> [--ref <rev>] [run options] -- "task"
       cairn fleet add --tasks <file.jsonl> [run options]

Queues tasks for any worker that reaches the same Redis; prints one job id a line. Each job is
signed with this machine's fleet secret (see cairn fleet secret): workers run only jobs signed with
theirs, and refuse options their own --allow does not permit (see cairn fleet worker --help).
A tasks file holds one {"repo", "ref", "task", "options"} a line; "options" are run options by name
({"max-turns": 8, "yolo": true}) over those given here.

  --repo <url|path>            repository the job works on (a path is pushed back into itself)
  --ref <rev>                  where to start (default: the repository's HEAD)
  --tasks <file.jsonl>         a batch, one job a line
  --timeout <s>                stop a job that runs longer than this
  --batch-max-budget-usd <usd> jobs of this batch stop starting once it has spent this much
  --attempts <n>               tries of a job that fails for a passing reason (429, 5xx, network; default 3)
  run options                  those of cairn run (see cairn run --help), e.g. --max-budget-usd per job`;

const lineSchema = z.object({
  repo: z.string().min(1),
  ref: z.string().min(1).optional(),
  task: z.string().min(1),
  options: z.record(z.string(), z.unknown()).optional(),
});

function positive(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} needs a number above 0, got "${value}".`);
  return n;
}

/** A local repository as an absolute real path; anything else is left to git as a URL. */
/** A job's --ref, checked as a worker checks it (git-target.ts). */
function checkedRef(ref: string | undefined, where: string): { ref?: string } {
  if (ref === undefined) return {};
  const problem = refProblem(ref);
  if (problem) throw new UsageError(`${where}: ${problem}`);
  return { ref };
}

function resolveRepo(repo: string, base: string): string {
  const local = path.resolve(base, repo);
  if (!existsSync(local)) {
    if (!/^[\w+.-]+:\/\/|^[\w.-]+@[\w.-]+:/.test(repo)) throw new UsageError(`--repo ${repo}: no such folder, and not a git URL.`);
    // Refused here as a worker would refuse it, not on a worker hours later.
    const problem = repoProblem(repo);
    if (problem) throw new UsageError(`--repo: ${problem}`);
    return repo;
  }
  try {
    execFileSync("git", ["-C", local, "rev-parse", "--git-dir"], { stdio: "ignore" });
  } catch {
    throw new UsageError(`--repo ${repo} is not a git repository; run git init there, or point at one.`);
  }
  return realpathSync(local);
}

export async function addCommand(argv: string[], io: Io): Promise<number> {
  const { values, rest } = takeFlags(argv, ["repo", "ref", "tasks", "timeout", "batch-max-budget-usd", "attempts"]);
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(`${addHelp}\n`);
    return 0;
  }
  const timeout = positive("--timeout", values.timeout);
  const batchBudget = positive("--batch-max-budget-usd", values["batch-max-budget-usd"]);
  const attempts = positive("--attempts", values.attempts) ?? 3;
  const batch = newJobId();
  const jobs: FleetJob[] = [];
  const base = { batch, added_at: Date.now(), ...(batchBudget ? { batch_budget_usd: batchBudget } : {}) };

  if (values.tasks !== undefined) {
    if (values.repo !== undefined) throw new UsageError("Give either --repo with a task, or --tasks with a file, not both.");
    let text: string;
    try {
      text = readFileSync(values.tasks, "utf8");
    } catch (error) {
      throw new UsageError(`cannot read --tasks ${values.tasks}: ${(error as Error).message}`);
    }
    if (rest.includes("--")) throw new UsageError("With --tasks, the tasks come from the file; remove the task from the command line.");
    validateRunFlags(rest);
    for (const [index, line] of text.split("\n").entries()) {
      if (line.trim() === "") continue;
      const where = `${values.tasks}:${index + 1}`;
      let parsed;
      try {
        parsed = lineSchema.parse(JSON.parse(line));
      } catch (error) {
        throw new UsageError(`${where}: not a {"repo", "task", "ref"?, "options"?} line (${(error as Error).message.split("\n")[0]}).`);
      }
      const { timeout: lineTimeout, ...options } = parsed.options ?? {};
      let run;
      try {
        run = validateRunFlags([...rest, ...flagsFromOptions(options)]);
      } catch (error) {
        throw new UsageError(`${where}: ${(error as Error).message}`);
      }
      const jobTimeout = lineTimeout === undefined ? timeout : positive(`${where}: timeout`, String(lineTimeout));
      jobs.push({ ...base, repo: resolveRepo(parsed.repo, path.dirname(path.resolve(values.tasks))), ...checkedRef(parsed.ref, where), task: parsed.task, run_flags: run.flags, ...(jobTimeout ? { timeout_s: jobTimeout } : {}) });
    }
    if (jobs.length === 0) throw new UsageError(`${values.tasks} holds no task; write one {"repo", "task"} a line.`);
  } else {
    if (values.repo === undefined) throw new UsageError('cairn fleet add needs --repo <git url or path> and a task (or --tasks file.jsonl); see cairn fleet add --help.');
    const dashes = rest.indexOf("--");
    const task = dashes === -1 ? "" : rest.slice(dashes + 1).join(" ").trim();
    const run = validateRunFlags(dashes === -1 ? rest : rest.slice(0, dashes));
    if (task === "") throw new UsageError('No task given: cairn fleet add --repo <repo> [options] -- "describe the task".');
    jobs.push({ ...base, repo: resolveRepo(values.repo, process.cwd()), ...checkedRef(values.ref, "--ref"), task, run_flags: run.flags, ...(timeout ? { timeout_s: timeout } : {}) });
  }

  const secret = fleetSecret(io.env, cairnHome(io.env));
  if (secret.created) io.stderr(`cairn: made a fleet secret in ${secret.source}; workers on other machines need the same one (see cairn fleet secret).\n`);
  const url = redisUrl(io.env);
  const redis = await connectOnce(url);
  const queue = new Queue(queueName, { connection: redis });
  try {
    const backoff = Number(io.env.CAIRN_FLEET_BACKOFF_MS ?? "") || 5000;
    const added = await queue.addBulk(
      jobs.map((data) => {
        const jobId = newJobId();
        return { name: "task", data: { ...data, signature: signJob(secret.value, jobId, data) }, opts: { jobId, attempts, backoff: { type: "exponential", delay: backoff } } };
      }),
    );
    if (batchBudget) await redis.set(fleetKeys.batchSpent(batch), "0", "EX", retentionSeconds);
    for (const job of added) io.stdout(`${job.id}\n`);
    io.stderr(`Added ${added.length} job${added.length === 1 ? "" : "s"} (batch ${batch}, signed with fleet secret ${secret.fingerprint}) to ${shownRedisUrl(url)}. Follow them with cairn fleet status.\n`);
    return 0;
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
