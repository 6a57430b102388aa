import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readdir, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processStart } from "../storage/process-identity.js";
import { CheckpointError, Checkpoints } from "./index.js";
import { filesInCheckpoint, read, snapshotTree, tempWorkspace, writeFiles, type TempWorkspace } from "./test-support.js";

let tmp: TempWorkspace;
let ws: string;

afterEach(async () => {
  await tmp.cleanup();
});

describe("awkward paths", () => {
  beforeEach(async () => {
    tmp = await tempWorkspace("my wörk späce ✓ (copy)");
    ws = tmp.workspace;
  });

  it("checkpoints and restores files with spaces, newlines, quotes, globs, dashes and unicode in their names", async () => {
    const names = ["with space.txt", "new\nline.txt", 'quote"and\'s.txt', "glob[1]*?.ts", "-rf", "--help", "日本語/ファイル.md", " lead and trail ", "back\\slash"];
    await writeFiles(ws, Object.fromEntries(names.map((name) => [name, `content of ${name}\n`])));
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual([...names].sort());
    const before = await snapshotTree(ws);

    for (const name of names) await writeFile(path.join(ws, name), "clobbered\n");
    await writeFiles(ws, { "new\nfile [x].txt": "created\n" });
    await rm(path.join(ws, "日本語"), { recursive: true });
    const diff = await checkpoints.diff(first.hash);
    expect(diff.files.map((f) => f.path)).toContain("new\nfile [x].txt");
    expect(diff.files.map((f) => f.path)).toContain("日本語/ファイル.md");

    await checkpoints.restore(first.hash);
    expect(await snapshotTree(ws)).toEqual(before);
  });
});

describe("locks and concurrency", () => {
  beforeEach(async () => {
    tmp = await tempWorkspace();
    ws = tmp.workspace;
  });

  it("recovers from an interrupted checkpoint's stale index.lock", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    await checkpoints.create("first");
    const lock = path.join(checkpoints.gitDir, "index.lock");
    await writeFile(lock, "half-written index of a killed git add");
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(lock, minuteAgo, minuteAgo);

    await writeFiles(ws, { "a.txt": "b\n" });
    expect((await checkpoints.create("after the crash")).changedFiles).toBe(1);
    expect(existsSync(lock)).toBe(false);
  });

  it("takes over from a Cairn process that died while holding the repository", async () => {
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const dead = spawn(process.execPath, ["-e", ""]);
    const deadPid = await new Promise<number>((resolve) => dead.on("exit", () => resolve(dead.pid ?? -1)));
    await writeFile(path.join(checkpoints.gitDir, "cairn.lock"), String(deadPid));
    await writeFile(path.join(checkpoints.gitDir, "index.lock"), "");
    const old = new Date(Date.now() - 60_000);
    await utimes(path.join(checkpoints.gitDir, "index.lock"), old, old);
    await expect(checkpoints.create("works")).resolves.toMatchObject({ changedFiles: 0 });
  });

  it("waits for another live Cairn process on the same workspace instead of running alongside it", async () => {
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 400)"]);
    await writeFile(path.join(checkpoints.gitDir, "cairn.lock"), String(other.pid));
    let otherExited = false;
    other.on("exit", () => {
      otherExited = true;
    });
    await checkpoints.create("after the other process");
    expect(otherExited).toBe(true);
  });

  it("takes over from a lock whose owner is a zombie (exited, never reaped), though the lock is still being touched", async () => {
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    // A child that exits while its parent (sh, replaced by sleep) never waits for it, as PID 1 may never reap an orphan.
    const parent = spawn("sh", ["-c", 'sh -c "exit 0" & echo $!; exec sleep 60'], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (data: Buffer) => resolve(data.toString("utf8")))));
      const state = () => readFileSync(`/proc/${zombie}/stat`, "utf8").replace(/^.*\) /s, "").charAt(0);
      while (state() !== "Z") await sleep(10);
      const lock = path.join(checkpoints.gitDir, "cairn.lock");
      await writeFile(lock, JSON.stringify({ pid: zombie, start: processStart(zombie), host: os.hostname() }));
      // Fresh all along: only the process's state can tell it is gone.
      const touch = setInterval(() => {
        const now = new Date();
        void utimes(lock, now, now).catch(() => {});
      }, 200);
      try {
        await expect(checkpoints.create("works")).resolves.toMatchObject({ changedFiles: 0 });
      } finally {
        clearInterval(touch);
      }
    } finally {
      parent.kill();
    }
  }, 60_000);

  it("runs concurrent calls one after another, each on top of the previous", async () => {
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const again = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? checkpoints : again).create(`step ${i}`)),
    );
    const list = await checkpoints.list();
    expect(list.map((c) => c.message)).toEqual(["step 5", "step 4", "step 3", "step 2", "step 1", "step 0"]);
    expect(list.map((c) => c.hash)).toEqual(results.map((r) => r.hash).reverse());
  });

  it("survives files changing while a checkpoint is being taken, and the next one catches up", async () => {
    await writeFiles(ws, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f/${i}.txt`, `${i}\n`])));
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const first = await checkpoints.create("first");
    const writer = (async () => {
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 300; i += 7) await writeFile(path.join(ws, `f/${i}.txt`), `round ${round}\n`);
        await rm(path.join(ws, `f/${round}.txt`), { force: true });
        await writeFile(path.join(ws, `f/new-${round}.txt`), "new\n");
      }
    })();
    await Promise.all([checkpoints.create("during"), writer]);
    const last = await checkpoints.create("after");
    expect((await checkpoints.diff(last.hash)).files).toEqual([]);

    await checkpoints.restore(first.hash);
    expect(await read(ws, "f/0.txt")).toBe("0\n");
    expect((await readdir(path.join(ws, "f"))).length).toBe(300);
  });
});

describe("refusals", () => {
  beforeEach(async () => {
    tmp = await tempWorkspace();
    ws = tmp.workspace;
  });

  it("refuses the home folder and the file-system root, saying what to open instead", async () => {
    await expect(Checkpoints.open({ workspace: os.homedir(), baseDir: tmp.baseDir })).rejects.toThrow(CheckpointError);
    await expect(Checkpoints.open({ workspace: os.homedir(), baseDir: tmp.baseDir })).rejects.toThrow(/home folder.*project folder/);
    await expect(Checkpoints.open({ workspace: "/", baseDir: tmp.baseDir })).rejects.toThrow(/file-system root/);
    expect(existsSync(tmp.baseDir) ? await readdir(tmp.baseDir) : []).toEqual([]);
  });

  it("reports a workspace that does not exist", async () => {
    await expect(Checkpoints.open({ workspace: path.join(ws, "missing"), baseDir: tmp.baseDir })).rejects.toThrow(/does not exist/);
  });

  it("keys each workspace by its real path: a symlink to it shares its history", async () => {
    const link = path.join(tmp.root, "link-to-workspace");
    const { symlink } = await import("node:fs/promises");
    await symlink(ws, link);
    const viaLink = await Checkpoints.open({ workspace: link, baseDir: tmp.baseDir });
    const direct = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    expect(viaLink.gitDir).toBe(direct.gitDir);
    expect(viaLink.workspace).toBe(ws);
    const other = await tempWorkspace();
    try {
      const elsewhere = await Checkpoints.open({ workspace: other.workspace, baseDir: tmp.baseDir });
      expect(elsewhere.gitDir).not.toBe(direct.gitDir);
    } finally {
      await other.cleanup();
    }
  });
});
