import { execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { processRunning, processStart, thisProcess } from "../storage/process-identity.js";
import { gitArguments, gitEnvironment, splitNul, type ShadowLocation } from "./git.js";

/**
 * The first index of a big workspace (`git add -A` of every file: 13–43 s for 100,000) is built by a
 * git process of its own, detached, into an index file of its own, and named in a marker. Nothing
 * then needs the person's process to stay: a task that changed nothing ends at once, and whichever
 * Cairn process next takes the store (this one or another) adopts the finished index with one
 * rename, so no half-built index is ever read, and stages what changed since as usual.
 *
 * While the indexer runs, staging waits for it (nothing else reads the index); calls that need no
 * index (the list, diffs between checkpoints) do not. An indexer that ended without its index
 * (killed, failed) leaves only files that are cleared, and the index is built again.
 */

/** A first index of more files than this is built by a detached process (see above); smaller ones take a second or two in place. */
export const backgroundIndexAbove = 10_000;

/** Written in the shadow folder while an indexer runs; read and removed under the store's lock. */
const markerName = "cairn-first-index.json";
const indexPrefix = "cairn-first-index-";
/** An indexer on another machine (a shared home) cannot be looked at: after this long it is taken as gone. */
const otherHostMs = 30 * 60_000;
const pollMs = 100;

/** The git process building a first index, the file it writes and how many files it indexes. */
export type Indexer = { pid: number; start: string; host: string; index: string; files: number; startedAt: number };

/** Thrown by a stage that found (or started) an indexer: the caller waits for it outside the lock, then tries again. */
export class FirstIndexUnderWay extends Error {
  constructor(
    readonly indexer: Indexer,
    /** Started by this call: if it ends without an index, the next try builds it in place (no loop of failing indexers). */
    readonly ours: boolean,
  ) {
    super(`the first index of ${indexer.files} files is being built by git (pid ${indexer.pid})`);
    this.name = "FirstIndexUnderWay";
  }
}

/** The caller let the indexer finish without it (see `Checkpoints.step`'s `onIndexingAway`). */
export class IndexingLeftRunning extends Error {
  constructor(readonly indexer: Indexer) {
    super(`the first index is left to git (pid ${indexer.pid}) to finish`);
    this.name = "IndexingLeftRunning";
  }
}

/**
 * Starts the indexer: `git add -A` of the whole work tree (nested repositories excluded, as in
 * place) into its own index file, not split (the shared index files belong to the store's own
 * index). Returns undefined when no process could be started; the caller then indexes in place.
 * Callers hold the store's lock, have no index and have written the exclude rules.
 */
export function startIndexer(location: ShadowLocation, files: number, addArgs: readonly string[]): Indexer | undefined {
  if (process.platform === "win32") return undefined;
  const { gitDir, workTree } = location;
  // Left by a process killed between starting an indexer and naming it: nothing will adopt them.
  for (const name of readdirSync(gitDir).filter((entry) => entry.startsWith(indexPrefix))) rmSync(path.join(gitDir, name), { force: true });
  const index = `${indexPrefix}${process.pid}-${Date.now()}`;
  const child = spawn("git", gitArguments(["-c", "core.splitIndex=false", ...addArgs]), {
    cwd: workTree,
    env: gitEnvironment(location, path.join(gitDir, index)),
    detached: true,
    stdio: "ignore",
    windowsHide: true,
  });
  child.on("error", () => {}); // reported as an indexer that ended without its index
  child.unref();
  if (child.pid === undefined) return undefined;
  const indexer: Indexer = { pid: child.pid, start: processStart(child.pid) ?? "", host: thisProcess.host, index, files, startedAt: Date.now() };
  const marker = path.join(gitDir, markerName);
  writeFileSync(`${marker}.tmp`, JSON.stringify(indexer));
  renameSync(`${marker}.tmp`, marker);
  return indexer;
}

/**
 * The files over the size limit, found by `find` (in C, on another core) while `git status` lists
 * the work tree: a first index of 100,000 files need not lstat each of them in the agent's process
 * (~0.4 s on its main thread) before its git can start. Regular files only, as the lstat's
 * `isFile()`; workspace-relative. `files` is undefined when `find` is missing, fails or is stopped
 * (the caller then lstats); `stop` ends a search no one needs any more.
 */
export function largeFilesByFind(workTree: string, maxFileBytes: number): { files: Promise<Set<string> | undefined>; stop(): void } {
  const stopped = new AbortController();
  const args = [".", "-name", ".git", "-prune", "-o", "-type", "f", "-size", `+${maxFileBytes}c`, "-print0"];
  const files = new Promise<Set<string> | undefined>((resolve) => {
    execFile("find", args, { cwd: workTree, encoding: "buffer", maxBuffer: 256 * 1024 * 1024, signal: stopped.signal }, (error, stdout) => {
      // An unreadable folder makes find exit 1 after listing the rest; such files are left out by git too.
      if (error && (typeof error.code !== "number" || error.code > 1)) return resolve(undefined);
      resolve(new Set(splitNul(stdout).map((file) => file.replace(/^\.\//, ""))));
    });
  });
  return { files, stop: () => stopped.abort() };
}

/** A live indexer to wait for, or the one whose index was just adopted and how long it took (to its index's last write). */
export type FirstIndexState = { live: Indexer } | { adopted: Indexer; tookMs: number } | undefined;

/**
 * Called under the store's lock before anything reads the index: a finished indexer's index becomes
 * the store's (one rename), an indexer that ended without one is cleared away, a live one is
 * returned to wait for.
 */
export function settleFirstIndex(gitDir: string): FirstIndexState {
  const marker = path.join(gitDir, markerName);
  const indexer = readIndexer(marker);
  if (indexer === "none") return undefined;
  if (indexer && indexerRuns(indexer)) return { live: indexer };
  let finishedAt: number | undefined;
  if (indexer) {
    const file = path.join(gitDir, indexer.index);
    // git writes the index to `<file>.lock` and renames it when complete: the file is whole or absent.
    finishedAt = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (finishedAt !== undefined) renameSync(file, path.join(gitDir, "index"));
    rmSync(`${file}.lock`, { force: true });
  }
  rmSync(marker, { force: true });
  return indexer && finishedAt !== undefined ? { adopted: indexer, tookMs: Math.max(0, finishedAt - indexer.startedAt) } : undefined;
}

/** Whether an indexer is named in the store (packing waits for it: it would pack half an index's objects). */
export function indexerNamed(gitDir: string): boolean {
  return existsSync(path.join(gitDir, markerName));
}

/** Resolves once the indexer has ended; rejects with `IndexingLeftRunning` when `signal` is aborted first. */
export async function indexerEnded(indexer: Indexer, signal: AbortSignal): Promise<void> {
  try {
    while (indexerRuns(indexer)) await sleep(pollMs, undefined, { signal });
  } catch (error) {
    if (signal.aborted) throw new IndexingLeftRunning(indexer);
    throw error;
  }
}

/** Running, and not a zombie: a finished indexer whose parent has exited may never be reaped here. */
function indexerRuns(indexer: Indexer): boolean {
  if (indexer.host !== thisProcess.host) return Date.now() - indexer.startedAt < otherHostMs;
  return processRunning(indexer);
}

/** The marker's indexer; undefined for a marker that cannot be read (cleared like a failed one), "none" without one. */
function readIndexer(marker: string): Indexer | undefined | "none" {
  let text: string;
  try {
    text = readFileSync(marker, "utf8");
  } catch {
    return "none";
  }
  try {
    const value = JSON.parse(text) as Partial<Indexer> | null;
    const { pid, start, host, index, files, startedAt } = value ?? {};
    if (typeof pid !== "number" || typeof host !== "string" || typeof index !== "string" || !index.startsWith(indexPrefix) || index.includes("/")) return undefined;
    return { pid, start: String(start ?? ""), host, index, files: Number(files) || 0, startedAt: Number(startedAt) || 0 };
  } catch {
    return undefined;
  }
}
