import { existsSync, linkSync, readdirSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rmdir, stat, unlink, utimes } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { processRunning, thisProcess, type ProcessIdentity } from "../storage/process-identity.js";
import { CheckpointError } from "./errors.js";

/** A git lock file in the shadow repository older than this, with no Cairn process at work, was left by a killed process. */
export const staleLockMs = 5_000;

/** How long to wait for another Cairn process that is using the same shadow repository. */
const ownerWaitMs = 120_000;
/** The owner touches its lock this often; a lock nobody touched for `abandonedMs` is abandoned (another host, a frozen process). */
const heartbeatMs = 2_000;
const abandonedMs = 30_000;
const pollMs = 25;

/** Who holds `cairn.lock`: enough to tell a live owner from a dead one, and a reused pid from the original. */
type Owner = ProcessIdentity;

/**
 * Cross-process ownership of a shadow repository. In one process a queue runs calls one at a time;
 * Cairn processes on the same workspace take turns through `cairn.lock`.
 *
 * The lock is born complete: the owner record is written to a private file and hard-linked to
 * `cairn.lock`, which fails if the name exists, so no one ever sees an empty or half-written lock
 * (the old lock could be stolen when it was read while empty). A lock is taken from its owner only
 * when the owner is provably gone: same host and its pid dead (a zombie too) or reused, or no heartbeat for
 * `abandonedMs`. Breaking runs under a second lock and re-reads the owner first, so two processes
 * cannot both break it and remove the lock a third one just took.
 *
 * While we own it no other Cairn process runs git there, so a git lock file left behind can only come
 * from a killed process and is removed once it is a few seconds old.
 */
export async function withOwnership<T>(gitDir: string, job: () => Promise<T>): Promise<T> {
  const lockFile = path.join(gitDir, "cairn.lock");
  await acquire(lockFile);
  const heartbeat = setInterval(() => {
    const now = new Date();
    void utimes(lockFile, now, now).catch(() => {});
  }, heartbeatMs);
  heartbeat.unref();
  try {
    await removeStaleGitLocks(gitDir);
    return await job();
  } finally {
    clearInterval(heartbeat);
    try {
      unlinkSync(lockFile);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

const self: Owner = thisProcess;

/**
 * Taking a free lock is a handful of system calls on tiny files, made synchronously: on a busy event
 * loop each asynchronous one waits its turn, and a step takes the lock every time. Waiting for a held
 * lock stays asynchronous.
 */
async function acquire(lockFile: string): Promise<void> {
  const deadline = Date.now() + ownerWaitMs;
  const mine = `${lockFile}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(mine, JSON.stringify(self));
  try {
    for (;;) {
      try {
        // The lock shares this file's timestamp: fresh at the moment it appears, or others would think it abandoned.
        const now = new Date();
        utimesSync(mine, now, now);
        linkSync(mine, lockFile);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const held = await readOwner(lockFile);
      if (held && (await isGone(held.owner, held.mtimeMs))) await breakLock(lockFile, held.raw);
      else if (Date.now() > deadline) {
        const who = held?.owner ? `pid ${held.owner.pid} on ${held.owner.host}` : "another process";
        throw new CheckpointError(
          `Another Cairn process (${who}) has been using the checkpoints of this workspace for over ${ownerWaitMs / 1000} s. Wait for it to finish, or stop it, then try again.`,
        );
      }
      await sleep(pollMs);
    }
  } finally {
    try {
      unlinkSync(mine);
    } catch {
      // Never written, or gone already.
    }
  }
}

async function readOwner(lockFile: string): Promise<{ raw: string; owner: Owner | undefined; mtimeMs: number } | undefined> {
  try {
    const [raw, stats] = await Promise.all([readFile(lockFile, "utf8"), stat(lockFile)]);
    return { raw, owner: parseOwner(raw), mtimeMs: stats.mtimeMs };
  } catch {
    return undefined; // released meanwhile: try again
  }
}

function parseOwner(raw: string): Owner | undefined {
  // A lock written by an older Cairn holds a bare pid.
  if (/^\s*\d+\s*$/.test(raw)) return { pid: Number(raw), host: self.host, start: "" };
  try {
    const value = JSON.parse(raw) as Partial<Owner> | null;
    if (typeof value?.pid === "number" && typeof value.host === "string") return { pid: value.pid, host: value.host, start: String(value.start ?? "") };
  } catch {
    // Not ours: wait for it to be released, or abandoned.
  }
  return undefined;
}

async function isGone(owner: Owner | undefined, mtimeMs: number): Promise<boolean> {
  if (Date.now() - mtimeMs > abandonedMs) return true;
  if (!owner || owner.host !== self.host) return false; // cannot see its process: wait for the heartbeat to stop
  if (owner.pid === process.pid) return owner.start === self.start; // our own leftover: the in-process queue runs one call at a time
  return !processRunning(owner); // dead, a zombie nobody reaps, or the pid now belongs to another process
}

/** Removes a lock whose owner is gone, if it still is the same lock (compared by content). */
async function breakLock(lockFile: string, seen: string): Promise<void> {
  const breaker = `${lockFile}.break`;
  try {
    await mkdir(breaker);
  } catch {
    // Someone else is breaking it; a breaker killed mid-way leaves this folder, cleared after a while.
    const age = Date.now() - ((await stat(breaker).catch(() => undefined))?.mtimeMs ?? Date.now());
    if (age > staleLockMs) await rmdir(breaker).catch(() => {});
    return;
  }
  try {
    if ((await readFile(lockFile, "utf8").catch(() => undefined)) === seen) await unlink(lockFile).catch(() => {});
  } finally {
    await rmdir(breaker).catch(() => {});
  }
}

/**
 * Removes git lock files a killed process left (an interrupted `git add` leaves index.lock, and every
 * later git command would fail on it). A fresh lock is waited for: a person may be running git
 * by hand in the shadow folder.
 */
export async function removeStaleGitLocks(gitDir: string): Promise<void> {
  const headsDir = path.join(gitDir, "refs", "heads");
  let refLocks: string[];
  try {
    refLocks = readdirSync(headsDir).filter((name) => name.endsWith(".lock"));
  } catch {
    refLocks = [];
  }
  const candidates = [
    ...["index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "cairn-restore-index.lock"].map((name) => path.join(gitDir, name)),
    ...refLocks.map((name) => path.join(headsDir, name)),
  ];
  // Usually none exists: one synchronous check each, and only a lock found is waited on.
  for (const lock of candidates.filter((candidate) => existsSync(candidate))) {
    for (;;) {
      const stats = await stat(lock).catch(() => undefined);
      if (!stats) break;
      if (Date.now() - stats.mtimeMs > staleLockMs) {
        await unlink(lock).catch(() => {});
        break;
      }
      await sleep(pollMs);
    }
  }
}
