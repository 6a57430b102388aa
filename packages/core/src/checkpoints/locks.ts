import { open, readdir, readFile, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CheckpointError } from "./errors.js";

/** A git lock file in the shadow repository older than this, with no Cairn process at work, was left by a killed process. */
export const staleLockMs = 5_000;

/** How long to wait for another Cairn process that is using the same shadow repository. */
const ownerWaitMs = 120_000;
const pollMs = 50;

/**
 * Cross-process ownership of a shadow repository. In one process a queue runs calls one at a time;
 * two Cairn processes on the same workspace take turns through `cairn.lock` (holding the owner's
 * pid). While we own it no other Cairn process runs git there, so a git lock file left behind can
 * only come from a killed process and is removed once it is a few seconds old.
 */
export async function withOwnership<T>(gitDir: string, job: () => Promise<T>): Promise<T> {
  const ownerFile = path.join(gitDir, "cairn.lock");
  await acquire(ownerFile);
  try {
    await removeStaleGitLocks(gitDir);
    return await job();
  } finally {
    await unlink(ownerFile).catch(() => {});
  }
}

async function acquire(ownerFile: string): Promise<void> {
  const deadline = Date.now() + ownerWaitMs;
  for (;;) {
    try {
      const handle = await open(ownerFile, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = Number.parseInt(await readFile(ownerFile, "utf8").catch(() => ""), 10);
    if (!isAlive(owner)) {
      // Its owner died mid-call (or the file is half-written: give a live writer a moment first).
      const age = Date.now() - ((await stat(ownerFile).catch(() => undefined))?.mtimeMs ?? 0);
      if (Number.isInteger(owner) || age > 1_000) await unlink(ownerFile).catch(() => {});
    } else if (Date.now() > deadline) {
      throw new CheckpointError(
        `Another Cairn process (pid ${owner}) has been using the checkpoints of this workspace for over ${ownerWaitMs / 1000} s. Wait for it to finish, or stop it, then try again.`,
      );
    }
    await sleep(pollMs);
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false; // our own leftover: the in-process queue means no call of ours is running
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes git lock files a killed process left (an interrupted `git add` leaves index.lock, and every
 * later git command would fail on it). A fresh lock is waited for: a person may be running git
 * by hand in the shadow folder.
 */
export async function removeStaleGitLocks(gitDir: string): Promise<void> {
  const headsDir = path.join(gitDir, "refs", "heads");
  const refLocks = (await readdir(headsDir).catch(() => [] as string[])).filter((name) => name.endsWith(".lock"));
  const candidates = [
    ...["index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "cairn-restore-index.lock"].map((name) => path.join(gitDir, name)),
    ...refLocks.map((name) => path.join(headsDir, name)),
  ];
  for (const lock of candidates) {
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
