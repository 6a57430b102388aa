import { existsSync } from "node:fs";
import { readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Checkpoints } from "./index.js";
import { filesInCheckpoint, read, snapshotTree, tempWorkspace, writeFiles, type TempWorkspace } from "./test-support.js";

let tmp: TempWorkspace;
let ws: string;

beforeEach(async () => {
  tmp = await tempWorkspace();
  ws = tmp.workspace;
});

afterEach(async () => {
  await tmp.cleanup();
});

const open = () => Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });

describe("Checkpoints in a folder that is not a git repository", () => {
  it("keeps the shadow repository under the base folder and adds nothing to the workspace", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const checkpoints = await open();
    await checkpoints.create("first");
    expect(await readdir(ws)).toEqual(["a.txt"]);
    expect(path.dirname(checkpoints.gitDir)).toBe(tmp.baseDir);
    expect(existsSync(path.join(checkpoints.gitDir, "HEAD"))).toBe(true);
  });

  it("records every file and counts what changed", async () => {
    await writeFiles(ws, { "a.txt": "a\n", "src/b.ts": "export const b = 1;\n", "src/deep/c.md": "# c\n" });
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(first.changedFiles).toBe(3);
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual(["a.txt", "src/b.ts", "src/deep/c.md"]);

    await writeFiles(ws, { "src/b.ts": "export const b = 2;\n" });
    expect((await checkpoints.create("second")).changedFiles).toBe(1);
  });

  it("makes a checkpoint even when nothing changed", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    const second = await checkpoints.create("nothing happened");
    expect(second.changedFiles).toBe(0);
    expect(second.hash).not.toBe(first.hash);
    expect((await checkpoints.list()).map((c) => c.message)).toEqual(["nothing happened", "first"]);
  });

  it("checkpoints an empty workspace", async () => {
    const checkpoints = await open();
    const first = await checkpoints.create("empty");
    expect(first.changedFiles).toBe(0);
    expect(await checkpoints.list()).toHaveLength(1);
  });

  it("lists checkpoints newest first with their messages and times", async () => {
    const checkpoints = await open();
    expect(await checkpoints.list()).toEqual([]);
    const hashes: string[] = [];
    for (const step of ["step 1", "step 2", "step 3"]) {
      await writeFiles(ws, { "log.txt": step });
      hashes.push((await checkpoints.create(step)).hash);
    }
    await checkpoints.create("multi-line message\n\nwith details");
    const list = await checkpoints.list();
    expect(list.map((c) => c.message)).toEqual(["multi-line message\n\nwith details", "step 3", "step 2", "step 1"]);
    expect(list.slice(1).map((c) => c.hash)).toEqual(hashes.reverse());
    for (const checkpoint of list) expect(Number.isNaN(Date.parse(checkpoint.time))).toBe(false);
  });

  it("packs each checkpoint's objects once the caller has its result (no loose 4 KB files pile up)", async () => {
    await writeFiles(ws, Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`src/${i}.ts`, `${i}\n`])));
    const checkpoints = await open();
    await checkpoints.create("first");
    await writeFiles(ws, { "src/1.ts": "changed\n" });
    await checkpoints.create("second");
    await checkpoints.idle();
    const objects = await readdir(path.join(checkpoints.gitDir, "objects"));
    expect(objects.filter((name) => /^[0-9a-f]{2}$/.test(name))).toEqual([]);
    const packs = await readdir(path.join(checkpoints.gitDir, "objects", "pack"));
    expect(packs.some((name) => name.endsWith(".pack"))).toBe(true);
  });

  it("a second Checkpoints object for the same workspace sees the same history", async () => {
    const first = await (await open()).create("from the first object");
    const again = await open();
    expect((await again.list()).map((c) => c.hash)).toEqual([first.hash]);
  });
});

describe("diff", () => {
  it("lists added, modified and deleted files between two checkpoints, with line counts and a patch", async () => {
    await writeFiles(ws, { "keep.txt": "same\n", "edit.txt": "one\ntwo\nthree\n", "gone.txt": "bye\n" });
    const checkpoints = await open();
    const from = await checkpoints.create("before");
    await writeFiles(ws, { "edit.txt": "one\n2\nthree\nfour\n", "new.txt": "hello\n" });
    await rm(path.join(ws, "gone.txt"));
    const to = await checkpoints.create("after");

    const diff = await checkpoints.diff(from.hash, to.hash);
    expect(diff.files).toEqual([
      { path: "edit.txt", status: "modified", additions: 2, deletions: 1 },
      { path: "gone.txt", status: "deleted", additions: 0, deletions: 1 },
      { path: "new.txt", status: "added", additions: 1, deletions: 0 },
    ]);
    expect(diff.patch).toContain("diff --git a/edit.txt b/edit.txt");
    expect(diff.patch).toContain("-two\n+2\n");
    expect(diff.patch).toContain("+hello");
    expect(diff.patch).not.toContain("keep.txt");
  });

  it("diffs a checkpoint against the workspace as it is now, without making a checkpoint", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const checkpoints = await open();
    const from = await checkpoints.create("before");
    await writeFiles(ws, { "a.txt": "A\n", "b.txt": "b\n" });

    const diff = await checkpoints.diff(from.hash);
    expect(diff.files.map((f) => [f.path, f.status])).toEqual([
      ["a.txt", "modified"],
      ["b.txt", "added"],
    ]);
    expect(await checkpoints.list()).toHaveLength(1);
    expect((await checkpoints.diff(from.hash, from.hash)).files).toEqual([]);
  });

  it("accepts an abbreviated hash and marks binary files", async () => {
    const checkpoints = await open();
    const from = await checkpoints.create("before");
    await writeFile(path.join(ws, "blob.dat"), Buffer.from([0, 1, 2, 0, 255]));
    const diff = await checkpoints.diff(from.hash.slice(0, 8));
    expect(diff.files).toEqual([{ path: "blob.dat", status: "added", additions: 0, deletions: 0, binary: true }]);
  });

  it("rejects a hash that is not a checkpoint, saying how to find one", async () => {
    const checkpoints = await open();
    await checkpoints.create("only");
    await expect(checkpoints.diff("deadbeef")).rejects.toThrow(/Checkpoint deadbeef is not in the checkpoint store.*cairn checkpoints <task-id>/);
    await expect(checkpoints.diff("--output=/tmp/x")).rejects.toThrow(/is not in the checkpoint store/);
  });
});

describe("restore", () => {
  it("rewrites modified files, removes files created since and brings deleted files back", async () => {
    await writeFiles(ws, { "edit.txt": "original\n", "gone.txt": "keep me\n", "dir/nested.txt": "n\n", "same.txt": "s\n" });
    const checkpoints = await open();
    const checkpoint = await checkpoints.create("before the agent");
    const before = await snapshotTree(ws);

    await writeFiles(ws, { "edit.txt": "changed\n", "created.txt": "new\n", "newdir/deep/x.txt": "x\n" });
    await rm(path.join(ws, "gone.txt"));
    await rm(path.join(ws, "dir"), { recursive: true });
    await checkpoints.create("after the agent");

    expect(await checkpoints.restore(checkpoint.hash)).toMatchObject({ restored: 3, removed: 2 });
    expect(await snapshotTree(ws)).toEqual(before);
  });

  it("restores changes made after the last checkpoint too, and restoring twice is harmless", async () => {
    await writeFiles(ws, { "a.txt": "a1\n" });
    const checkpoints = await open();
    const checkpoint = await checkpoints.create("one");
    await writeFiles(ws, { "a.txt": "not checkpointed yet\n", "b.txt": "neither\n" });

    await checkpoints.restore(checkpoint.hash);
    expect(await read(ws, "a.txt")).toBe("a1\n");
    expect(existsSync(path.join(ws, "b.txt"))).toBe(false);
    expect(await checkpoints.restore(checkpoint.hash)).toMatchObject({ restored: 0, removed: 0 });
  });

  it("can go forward again: history is kept, and the restored state is the next checkpoint", async () => {
    await writeFiles(ws, { "a.txt": "v1\n" });
    const checkpoints = await open();
    const v1 = await checkpoints.create("v1");
    await writeFiles(ws, { "a.txt": "v2\n" });
    const v2 = await checkpoints.create("v2");

    await checkpoints.restore(v1.hash);
    expect(await read(ws, "a.txt")).toBe("v1\n");
    await checkpoints.restore(v2.hash, { afterLabel: "restored to v2" });
    expect(await read(ws, "a.txt")).toBe("v2\n");
    const undone = await checkpoints.restore(v1.hash, { afterLabel: "restored to v1" });
    expect(undone.after).toBeDefined();
    expect((await checkpoints.list()).map((c) => c.message)).toEqual([
      "restored to v1",
      "before restore",
      "restored to v2",
      "before restore",
      "restored",
      "before restore",
      "v2",
      "v1",
    ]);
    // The restored state is already recorded; going back to the "before restore" checkpoint undoes it.
    expect((await checkpoints.create("after restoring v1")).changedFiles).toBe(0);
    await checkpoints.restore(undone.before.hash);
    expect(await read(ws, "a.txt")).toBe("v2\n");
  });

  it("restores a file that became a folder, and a folder that became a file", async () => {
    await writeFiles(ws, { "thing": "was a file\n", "box/inside.txt": "in a folder\n" });
    const checkpoints = await open();
    const checkpoint = await checkpoints.create("before");
    await rm(path.join(ws, "thing"));
    await rm(path.join(ws, "box"), { recursive: true });
    await writeFiles(ws, { "thing/child.txt": "now a folder\n", "box": "now a file\n" });

    await checkpoints.restore(checkpoint.hash);
    expect(await read(ws, "thing")).toBe("was a file\n");
    expect(await read(ws, "box/inside.txt")).toBe("in a folder\n");
  });

  it("keeps file modes and symlinks", async () => {
    const { chmod, stat, symlink, readlink } = await import("node:fs/promises");
    await writeFiles(ws, { "run.sh": "#!/bin/sh\necho hi\n", "target.txt": "t\n" });
    await chmod(path.join(ws, "run.sh"), 0o755);
    await symlink("target.txt", path.join(ws, "link"));
    const checkpoints = await open();
    const checkpoint = await checkpoints.create("before");
    await rm(path.join(ws, "run.sh"));
    await rm(path.join(ws, "link"));

    await checkpoints.restore(checkpoint.hash);
    expect((await stat(path.join(ws, "run.sh"))).mode & 0o111).not.toBe(0);
    expect(await readlink(path.join(ws, "link"))).toBe("target.txt");
  });
});
