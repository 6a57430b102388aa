import { randomUUID } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { processRunning, thisProcess, type ProcessIdentity } from "./process-identity.js";

/** The lock file in a task's folder: who writes the task's journal now. */
export const taskLockName = "writer.lock";

/** What the lock file holds: the owner, and a nonce that makes every lock taken distinct. */
type LockRecord = ProcessIdentity & { nonce: string; since: string };

/** Another live process holds the task: `message` is the one line for the person. */
export class TaskInUseError extends Error {
  override name = "TaskInUseError";
  constructor(
    readonly owner: ProcessIdentity,
    readonly lockFile: string,
    id: string,
  ) {
    const where = owner.host === thisProcess.host ? `process ${owner.pid}` : `process ${owner.pid} on ${owner.host}`;
    super(
      `Task ${id} is in use by ${where}; wait for it to finish or stop it. If no Cairn runs as ${where} (check with ps -p ${owner.pid}${owner.host === thisProcess.host ? "" : ` on ${owner.host}`}), delete ${lockFileShown(lockFile)} and try again.`,
    );
  }
}

function lockFileShown(file: string): string {
  return /\s/.test(file) ? JSON.stringify(file) : file;
}

/**
 * Locks this process holds, by task folder: the exact content written, and how many store objects
 * of this process hold it (a host may open a task again before closing it, as an SDK restore does).
 * Released when the last one lets go, or on exit.
 */
const held = new Map<string, { content: string; holders: number }>();
let exitHook = false;

/**
 * Makes this process the one writer of the task in `dir`, or throws TaskInUseError naming the
 * live process that is. Taking a lock this process already holds does nothing.
 *
 * The lock is born complete: the record is written to a private file and hard-linked to the lock's
 * name, which fails if the name exists (an exclusive create, without a moment where the file is
 * empty). A lock whose owner is gone (exited, a zombie, its pid reused by another program) is taken
 * over: under a breaker folder (mkdir is atomic, so one breaker at a time) the lock is read again
 * and removed only if it is still the very lock judged stale (its nonce), so two processes taking
 * over at once cannot both win, nor remove a lock a third one just took. Only system calls on
 * tiny files, once per task per process: nothing of this runs per step.
 */
export function takeTaskLock(dir: string, id: string): void {
  const ours = held.get(dir);
  if (ours) {
    ours.holders += 1;
    return;
  }
  const lockFile = path.join(dir, taskLockName);
  const record: LockRecord = { ...thisProcess, nonce: randomUUID(), since: new Date().toISOString() };
  const content = `${JSON.stringify(record)}\n`;
  const mine = `${lockFile}.${process.pid}.${record.nonce.slice(0, 8)}`;
  writeFileSync(mine, content);
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (create(mine, lockFile, content)) {
        remember(dir, content);
        return;
      }
      const seen = readLock(lockFile);
      if (seen === undefined) continue; // released meanwhile: try again
      const owner = parseRecord(seen);
      if (!owner && beingWritten(lockFile)) {
        pause(10); // created without a hard link (see `create`): its record is on the way
        continue;
      }
      if (owner && owner.pid === thisProcess.pid && owner.start === thisProcess.start && owner.host === thisProcess.host) {
        remember(dir, seen); // taken by this process through another store object: it is ours already
        return;
      }
      if (owner && processRunning(owner)) throw new TaskInUseError(owner, lockFile, id);
      if (!breakStaleLock(lockFile, seen)) pause(10);
    }
    throw new Error(`Could not take the lock ${lockFile} of task ${id}: other processes keep taking it over. Try again.`);
  } finally {
    try {
      unlinkSync(mine);
    } catch {
      // gone already
    }
  }
}

/**
 * Creates the lock from the written record; false when a lock exists. On a file system without hard
 * links the lock is created exclusively (O_EXCL) and then written: for that moment it is empty, and
 * `beingWritten` keeps others from taking an empty young lock for a stale one.
 */
function create(mine: string, lockFile: string, content: string): boolean {
  try {
    linkSync(mine, lockFile);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
  }
  try {
    writeFileSync(lockFile, content, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

function beingWritten(lockFile: string): boolean {
  const stats = statSync(lockFile, { throwIfNoEntry: false });
  return stats !== undefined && stats.size === 0 && Date.now() - stats.mtimeMs < 2_000;
}

/** One holder in this process lets the task in `dir` go; the last one removes the lock (only if it is still ours). */
export function releaseTaskLock(dir: string, all = false): void {
  const ours = held.get(dir);
  if (ours === undefined) return;
  ours.holders -= 1;
  if (ours.holders > 0 && !all) return;
  held.delete(dir);
  const content = ours.content;
  const lockFile = path.join(dir, taskLockName);
  if (readLock(lockFile) !== content) return;
  try {
    unlinkSync(lockFile);
  } catch {
    // gone already (the task deleted)
  }
}

/** The live process holding the task in `dir`, other than this one; undefined when none does. */
export function taskLockHolder(dir: string): ProcessIdentity | undefined {
  const seen = readLock(path.join(dir, taskLockName));
  if (seen === undefined) return undefined;
  const owner = parseRecord(seen);
  if (!owner) return undefined;
  if (owner.pid === thisProcess.pid && owner.host === thisProcess.host && owner.start === thisProcess.start) return undefined;
  return processRunning(owner) ? owner : undefined;
}

/** Whether this process holds the task in `dir`. */
export function holdsTaskLock(dir: string): boolean {
  return held.has(dir);
}

/** Whether a lock file exists in `dir` at all (a task of a Cairn from before locks has none). */
export function hasTaskLock(dir: string): boolean {
  return readLock(path.join(dir, taskLockName)) !== undefined;
}

function remember(dir: string, content: string): void {
  held.set(dir, { content, holders: 1 });
  if (exitHook) return;
  exitHook = true;
  // A process that ends normally (or on SIGINT/SIGTERM, which the CLI turns into an exit) gives its
  // tasks up; one killed outright leaves its lock, which the next taker finds stale.
  process.on("exit", () => {
    for (const dir of [...held.keys()]) releaseTaskLock(dir, true);
  });
}

/**
 * Removes the lock at `lockFile` if it still holds `seen`; false when another process is breaking
 * it right now. A breaker killed mid-way leaves its folder, cleared once it is a few seconds old.
 */
function breakStaleLock(lockFile: string, seen: string): boolean {
  const breaker = `${lockFile}.break`;
  try {
    mkdirSync(breaker);
  } catch {
    const age = Date.now() - (statSync(breaker, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 5_000) {
      try {
        rmdirSync(breaker);
      } catch {
        // removed by another process
      }
    }
    return false;
  }
  try {
    if (readLock(lockFile) === seen) unlinkSync(lockFile);
  } catch {
    // removed meanwhile by its owner
  } finally {
    rmdirSync(breaker);
  }
  return true;
}

function readLock(lockFile: string): string | undefined {
  try {
    return readFileSync(lockFile, "utf8");
  } catch {
    return undefined;
  }
}

function parseRecord(raw: string): LockRecord | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockRecord> | null;
    if (typeof value?.pid === "number" && typeof value.host === "string" && typeof value.start === "string") {
      return { pid: value.pid, host: value.host, start: value.start, nonce: String(value.nonce ?? ""), since: String(value.since ?? "") };
    }
  } catch {
    // not a lock Cairn wrote whole: treated as stale
  }
  return undefined;
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
