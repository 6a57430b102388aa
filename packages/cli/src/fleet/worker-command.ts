import { existsSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cairnHome, loadSettings, probeBubblewrap } from "@cairn/core";
import { Worker } from "bullmq";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";
import { fleetKeys, queueName } from "@cairn/host/fleet/fleet-keys";
import { connectLasting, redisUrl, shownRedisUrl } from "@cairn/host/fleet/redis-connection";
import { processJob, type StopReason } from "./process-job.js";
import { prepareFleetDir } from "./fleet-folders.js";
import { fleetSecret } from "./fleet-secret.js";
import { allowHelp, workerPolicy } from "./job-policy.js";
import { takeFlags, takeRepeated } from "./take-flags.js";

export const workerHelp = `Usage: cairn fleet worker [--concurrency N] [--provider-cap <provider>=<n>,...] [--name <name>] [--dir <folder>] [--allow <what>,...]

Takes jobs from the queue in Redis (CAIRN_REDIS_URL) until stopped: checks each repository out
(mirrors and checkouts in --dir), runs the task with cairn run in its sandbox, commits the
changes on branch cairn/<job-id> and pushes it to the repository. Keys come from this machine's
environment. Ctrl-C stops taking jobs and waits for running ones; a second Ctrl-C leaves at once
(other workers take those jobs up again).

A job is a request: the worker runs only jobs signed with its fleet secret (cairn fleet secret),
and refuses, as failed with the reason, a job whose run options ask for more than --allow permits.

  --concurrency <n>            jobs at once on this worker (default 1)
  --provider-cap <p>=<n>,...   at most n jobs at once on provider p, across all workers
  --name <name>                how this worker signs its results (default host:pid)
  --dir <folder>               where mirrors and checkouts go (default: CAIRN_HOME's path + "-fleet",
                               e.g. ~/.cairn-fleet); outside CAIRN_HOME, which jobs' commands must not see
${allowHelp}

Tuning (environment): CAIRN_FLEET_LOCK_MS (default 30000): how long a job stays with a worker that
stops answering before another takes it up; CAIRN_FLEET_RATE_PAUSE_MS (default 10000): how long all
workers hold back from a provider after a 429 that named no delay.`;

function parseCaps(value: string | undefined): Map<string, number> {
  const caps = new Map<string, number>();
  if (value === undefined) return caps;
  for (const part of value.split(",")) {
    const match = /^([\w-]+)=(\d+)$/.exec(part.trim());
    if (!match || Number(match[2]) < 1) throw new UsageError(`--provider-cap takes provider=n pairs (anthropic=2,openai=4), got "${part}".`);
    caps.set(match[1]!, Number(match[2]));
  }
  return caps;
}

/**
 * The provider and base URL this worker's own configuration names (its environment, then
 * CAIRN_HOME/settings.json): jobs may name these without an allowance.
 */
function ownEndpoint(env: Record<string, string | undefined>, home: string): { provider: string | undefined; baseUrl: string | undefined } {
  let settings: { provider?: string; baseUrl?: string } = {};
  try {
    settings = loadSettings(home);
  } catch {
    // A broken settings file stops every run with its own message; here it names nothing.
  }
  return { provider: env.CAIRN_PROVIDER?.trim() || settings.provider, baseUrl: env.CAIRN_BASE_URL?.trim() || settings.baseUrl };
}

/**
 * Without --allow sandbox-off, every job's commands run in the OS sandbox, so a worker that could not
 * give them one (no bubblewrap, another OS) or whose own settings turn it off does not start: a run
 * would otherwise carry on without it, which is --sandbox off by another name.
 */
function sandboxOrRefuse(env: Record<string, string | undefined>, home: string): void {
  let mode = env.CAIRN_SANDBOX?.trim();
  try {
    mode ||= loadSettings(home).sandbox?.mode;
  } catch {
    // a broken settings file stops every run with its own message
  }
  const fix = "or start the worker with --allow sandbox-off to run jobs without it";
  if (mode === "off") throw new UsageError(`This worker's own settings turn the OS sandbox off (${env.CAIRN_SANDBOX?.trim() ? "CAIRN_SANDBOX" : "CAIRN_HOME/settings.json"}), so every job would run outside it; remove that, ${fix}.`);
  const probe = probeBubblewrap(env.PATH, false, home);
  if (!probe.ok) throw new UsageError(`This machine cannot run the OS sandbox (${probe.reason}), so every job would run outside it; install bubblewrap, ${fix}.`);
}

/**
 * The worker's folder of mirrors and scratch checkouts. Outside CAIRN_HOME: the sandbox hides
 * CAIRN_HOME from commands, but not a folder that holds the workspace, so checkouts inside it
 * would let a job's commands read the worker's settings, trust, the other runs' task records.
 */
function fleetDir(given: string | undefined, home: string): string {
  const dir = path.resolve(given ?? `${home}-fleet`);
  // By real paths, as the sandbox decides what holds a workspace: a link that leads into CAIRN_HOME is inside it.
  const inside = path.relative(realOrNearest(home), realOrNearest(dir));
  if (inside === "" || (!inside.startsWith(`..${path.sep}`) && inside !== ".." && !path.isAbsolute(inside)))
    throw new UsageError(`--dir ${dir} is inside CAIRN_HOME (${home}), which a job's commands would then see; choose a folder outside it.`);
  return dir;
}

/** The real path of `p`, or of its nearest existing folder with the rest added (a --dir not made yet). */
function realOrNearest(p: string): string {
  let existing = path.resolve(p);
  const rest: string[] = [];
  while (!existsSync(existing) && path.dirname(existing) !== existing) {
    rest.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  try {
    return path.join(realpathSync.native(existing), ...rest);
  } catch {
    return path.resolve(p);
  }
}

export async function workerCommand(argv: string[], io: Io): Promise<number> {
  const allowed = takeRepeated(argv, "allow");
  const { values, rest } = takeFlags(allowed.rest, ["concurrency", "provider-cap", "name", "dir"]);
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(`${workerHelp}\n`);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`Unknown argument "${rest[0]}" for cairn fleet worker (see cairn fleet worker --help).`);
  const concurrency = values.concurrency === undefined ? 1 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency needs a whole number above 0, got "${values.concurrency}".`);
  const providerCaps = parseCaps(values["provider-cap"]);
  const name = values.name ?? `${os.hostname()}:${process.pid}`;
  const lockMs = Number(io.env.CAIRN_FLEET_LOCK_MS ?? "") || 30_000;
  const rateLimitPauseMs = Number(io.env.CAIRN_FLEET_RATE_PAUSE_MS ?? "") || 10_000;
  const home = cairnHome(io.env);
  const cacheDir = fleetDir(values.dir, home);
  const policy = workerPolicy(allowed.values, ownEndpoint(io.env, home));
  if (!policy.allows.has("sandbox-off")) sandboxOrRefuse(io.env, home);
  const secret = fleetSecret(io.env, home);
  prepareFleetDir(cacheDir);
  const url = redisUrl(io.env);

  const redis = await connectLasting(url);
  const running = new Map<string, AbortController>();
  const log = (line: string) => io.stdout(`${line}\n`);
  const ctx = { redis, name, cacheDir, secret, policy, providerCaps, rateLimitPauseMs, lockMs, log };
  if (secret.created) log(`worker ${name}: made a fleet secret in ${secret.source}; cairn fleet add on this machine signs with it, other machines need the same one (see cairn fleet secret)`);

  const worker = new Worker(
    queueName,
    async (job) => {
      const stop = new AbortController();
      running.set(job.id!, stop);
      try {
        return await processJob(job, ctx, stop);
      } finally {
        running.delete(job.id!);
      }
    },
    // A job's lock is renewed every lockMs/2 while its worker lives; once it lapses, the next stalled
    // check (every lockMs) hands the job to another worker. Twice stalled is a job that kills its workers.
    { connection: redis, name, concurrency, lockDuration: lockMs, stalledInterval: lockMs, maxStalledCount: 2, autorun: false },
  );
  worker.on("error", () => {}); // connection trouble: ioredis reconnects, BullMQ carries on
  // A lock that could not be renewed is no longer ours (Redis was away longer than the lock, and
  // another worker took the job up): stop our run, so the job never runs twice at once.
  worker.on("lockRenewalFailed", (jobIds) => {
    for (const id of jobIds) running.get(id)?.abort("lock_lost" satisfies StopReason);
  });

  // `fleet cancel` leaves a mark in Redis; whichever worker holds the job sees it within a second.
  const watchCancels = setInterval(() => {
    const ids = [...running.keys()];
    if (ids.length === 0) return;
    void Promise.all(ids.map((id) => redis.exists(fleetKeys.cancel(id))))
      .then((marks) => marks.forEach((marked, i) => marked && running.get(ids[i]!)?.abort("cancelled" satisfies StopReason)))
      .catch(() => {});
  }, 1000);

  let stopping = false;
  const onSignal = () => {
    if (stopping) {
      log(`worker ${name}: leaving now; running jobs go back to the queue`);
      process.exit(130);
    }
    stopping = true;
    log(`worker ${name}: stopping after the running jobs (Ctrl-C again to leave now)`);
    void worker.close();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const allows = [...policy.allows, ...[...policy.baseUrls].map((u) => `base-url=${u}`)];
  log(`worker ${name}: ready (concurrency ${concurrency}, ${shownRedisUrl(url)}, fleet secret ${secret.fingerprint}, allows ${allows.length ? allows.join(",") : "no widening option"})`);
  try {
    await worker.run();
  } finally {
    clearInterval(watchCancels);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    redis.disconnect();
  }
  log(`worker ${name}: stopped`);
  return 0;
}
