import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processRunning, processStart } from "../storage/process-identity.js";
import { backgroundIndexAbove } from "./first-index.js";
import { Checkpoints, IndexingLeftRunning } from "./index.js";
import { filesInCheckpoint, tempWorkspace, userGit, type TempWorkspace } from "./test-support.js";

/**
 * The first index of a big workspace, built by a detached git (first-index.ts), with real git on a
 * workspace just over the size that takes that path. The indexer is stopped (SIGSTOP) the moment it
 * is named where a test needs it still running, so nothing depends on how fast git is.
 */

let tmp: TempWorkspace;
let ws: string;
const files = backgroundIndexAbove + 50;
const count = files.toLocaleString("en-US");
/** Indexers a test started, continued and waited for before the folders go. */
const indexers = new Set<number>();

beforeEach(async () => {
  tmp = await tempWorkspace();
  ws = tmp.workspace;
  for (let d = 0; d * 100 < files; d++) {
    mkdirSync(path.join(ws, `d${d}`));
    for (let i = d * 100; i < Math.min(files, (d + 1) * 100); i++) writeFileSync(path.join(ws, `d${d}`, `f${i}.txt`), `file ${i}\n`);
  }
});

afterEach(async () => {
  for (const pid of indexers) {
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // Gone already.
    }
    await ended(pid);
  }
  indexers.clear();
  await tmp.cleanup();
});

/** Waits for a process to end (a zombie has ended). */
async function ended(pid: number): Promise<void> {
  const who = { pid, start: processStart(pid) ?? "", host: os.hostname() };
  for (let waited = 0; processRunning(who) && waited < 120_000; waited += 50) await sleep(50);
}

const store = (checkpoints: Checkpoints) => readdirSync(checkpoints.gitDir);

describe("the first index of a big workspace", () => {
  it("is built by a detached git the caller may leave; the next call adopts its index and records every file", async () => {
    // A file over the size limit stays out, a nested repository's files go in, as with an index built in place.
    writeFileSync(path.join(ws, "big.bin"), Buffer.alloc(4_000, 7));
    mkdirSync(path.join(ws, "nested"));
    userGit(path.join(ws, "nested"), ["init", "-q"], tmp.root);
    writeFileSync(path.join(ws, "nested", "inside.txt"), "inside\n");
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir, maxFileBytes: 1_000 });
    const notices: string[] = [];
    let pid = 0;
    const left = checkpoints.step("task start", {
      mayDefer: true,
      onNotice: (message) => notices.push(message),
      onIndexingAway: (indexing) => {
        pid = indexing.pid;
        indexers.add(pid);
        expect(indexing.files).toBe(files);
        expect(indexing.letGo()).toBe(true);
      },
    });
    await expect(left).rejects.toBeInstanceOf(IndexingLeftRunning);
    expect(notices).toEqual([`checkpoints: indexing ${files.toLocaleString("en-US")} files…`]);
    expect(store(checkpoints)).toContain("cairn-first-index.json");
    // The list needs no index: it does not wait.
    expect(await checkpoints.list()).toEqual([]);

    await ended(pid);
    const later = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir, maxFileBytes: 1_000 });
    const adoptedNotices: string[] = [];
    const made = await later.step("next", { onNotice: (message) => adoptedNotices.push(message) });
    expect(made.kind === "checkpoint" && made.changes.length).toBe(files + 1);
    // Adopted, not indexed again.
    expect(adoptedNotices).toEqual([expect.stringMatching(new RegExp(`^checkpoints: indexed ${count} files in \\d+\\.\\d s$`))]);
    const recorded = made.kind === "checkpoint" ? filesInCheckpoint(later.gitDir, made.hash) : [];
    expect(recorded).toHaveLength(files + 1);
    expect(recorded).toContain("nested/inside.txt");
    expect(recorded).not.toContain("big.bin");
    expect(readFileSync(path.join(later.gitDir, "cairn-large-files.json"), "utf8")).toBe('["big.bin"]');
    expect(store(later).filter((name) => name.startsWith("cairn-first-index"))).toEqual([]);

    // The adopted index is the store's own from then on: a one-file change is one file.
    writeFileSync(path.join(ws, "d0", "f0.txt"), "changed\n");
    const step = await later.step("turn 1: write_to_file", { paths: ["d0/f0.txt"] });
    expect(step.kind === "checkpoint" && step.changes).toEqual([{ path: "d0/f0.txt", status: "modified" }]);
  }, 120_000);

  it("waits for a live indexer where the index is needed, and builds the index again after one killed mid-way", async () => {
    const first = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    let pid = 0;
    const left = first.step("task start", {
      mayDefer: true,
      onIndexingAway: (indexing) => {
        pid = indexing.pid;
        indexers.add(pid);
        process.kill(pid, "SIGSTOP");
        indexing.letGo();
      },
    });
    await expect(left).rejects.toBeInstanceOf(IndexingLeftRunning);

    // Another call that needs the index waits for the stopped indexer, and says so.
    const second = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const waitedFor: number[] = [];
    const notices: string[] = [];
    const waiting = second.step("task start", {
      onNotice: (message) => notices.push(message),
      onIndexingAway: (indexing) => {
        waitedFor.push(indexing.pid);
        // The indexer dies mid-way (kill -9): it leaves its index's lock file, and no index.
        if (indexing.pid === pid) process.kill(pid, "SIGKILL");
      },
    });
    const made = await waiting;
    expect(waitedFor[0]).toBe(pid);
    expect(waitedFor).toHaveLength(2); // the killed one, then the one started again
    expect(notices.filter((notice) => notice.startsWith("checkpoints: indexing"))).toHaveLength(1);
    expect(made.kind === "checkpoint" && filesInCheckpoint(second.gitDir, made.hash).length).toBe(files);
    expect(store(second).filter((name) => name.startsWith("cairn-first-index"))).toEqual([]);
  }, 120_000);

  it("an indexer of the caller's own that ends without its index is not started again: the next try indexes in place", async () => {
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const notices: string[] = [];
    const made = await checkpoints.step("task start", {
      onNotice: (message) => notices.push(message),
      onIndexingAway: (indexing) => {
        indexers.add(indexing.pid);
        process.kill(indexing.pid, "SIGKILL");
      },
    });
    expect(notices.filter((notice) => notice.startsWith("checkpoints: indexing"))).toEqual([`checkpoints: indexing ${count} files…`, `checkpoints: indexing ${count} files…`]);
    expect(notices.at(-1)).toMatch(new RegExp(`^checkpoints: indexed ${count} files in`));
    expect(made.kind === "checkpoint" && filesInCheckpoint(checkpoints.gitDir, made.hash).length).toBe(files);
    expect(existsSync(path.join(checkpoints.gitDir, "cairn-first-index.json"))).toBe(false);
  }, 120_000);
});
