import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, symlink, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Checkpoints, type StepCheckpoint } from "./index.js";
import { filesInCheckpoint, tempWorkspace, writeFiles, type TempWorkspace } from "./test-support.js";

let tmp: TempWorkspace;
let ws: string;

beforeEach(async () => {
  tmp = await tempWorkspace();
  ws = tmp.workspace;
});

afterEach(async () => {
  await tmp.cleanup();
});

const open = (lazyAboveFiles?: number) => Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir, ...(lazyAboveFiles !== undefined ? { lazyAboveFiles } : {}) });

function made(result: StepCheckpoint): Extract<StepCheckpoint, { kind: "checkpoint" }> {
  if (result.kind !== "checkpoint") throw new Error(`expected a checkpoint, got ${JSON.stringify(result)}`);
  return result;
}

/** One file's content in a checkpoint, read with git itself. */
function fileAt(gitDir: string, hash: string, file: string): string {
  return execFileSync("git", ["--git-dir", gitDir, "show", `${hash}:${file}`], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: gitDir, GIT_CONFIG_NOSYSTEM: "1" } });
}

describe("a step's checkpoint", () => {
  it("in a store this process just created, builds on a checkpoint another process made there meanwhile", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const fresh = await open(); // created the store: it knows there is no checkpoint yet
    const other = await open(); // a second task in the same workspace
    const theirs = made(await other.step("task start"));
    await writeFiles(ws, { "a.txt": "changed\n" });
    const ours = made(await fresh.step("turn 1: write_to_file", { paths: ["a.txt"] }));
    expect(ours.changes).toEqual([{ path: "a.txt", status: "modified" }]);
    expect(execFileSync("git", ["--git-dir", fresh.gitDir, "rev-parse", `${ours.hash}^`], { encoding: "utf8" }).trim()).toBe(theirs.hash);
    expect(fileAt(fresh.gitDir, ours.hash, "a.txt")).toBe("changed\n");
  });

  it("adds no checkpoint when the step changed nothing, and returns the latest", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const checkpoints = await open();
    const start = made(await checkpoints.step("task start"));
    expect(start.created).toBe(true);
    const again = made(await checkpoints.step("turn 1: execute_command"));
    expect(again).toEqual({ kind: "checkpoint", hash: start.hash, created: false, changes: [] });
    const sameContent = made(await checkpoints.step("turn 2: write_to_file", { paths: ["a.txt"] }));
    expect(sameContent.created).toBe(false);
    expect((await checkpoints.list()).map((c) => c.message)).toEqual(["task start"]);
  });

  it("makes one when the files changed, listing what changed", async () => {
    await writeFiles(ws, { "a.txt": "a\n", "b.txt": "b\n" });
    const checkpoints = await open();
    await checkpoints.step("task start");
    await writeFiles(ws, { "a.txt": "changed\n", "c.txt": "new\n" });
    await unlink(path.join(ws, "b.txt"));
    const step = made(await checkpoints.step("turn 1: execute_command"));
    expect(step.created).toBe(true);
    expect(step.changes.sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: "a.txt", status: "modified" },
      { path: "b.txt", status: "deleted" },
      { path: "c.txt", status: "added" },
    ]);
    expect(filesInCheckpoint(checkpoints.gitDir, step.hash).sort()).toEqual(["a.txt", "c.txt"]);
  });

  it("with paths, records only those: a file changed elsewhere waits for the next full look", async () => {
    await writeFiles(ws, { "src/edited.ts": "1\n", "other.txt": "before\n" });
    const checkpoints = await open();
    await checkpoints.step("task start");
    await writeFiles(ws, { "src/edited.ts": "2\n", "other.txt": "changed by the person\n" });
    const step = made(await checkpoints.step("turn 1: write_to_file", { paths: [path.join(ws, "src/edited.ts")] }));
    expect(step.changes).toEqual([{ path: "src/edited.ts", status: "modified" }]);
    expect(fileAt(checkpoints.gitDir, step.hash, "other.txt")).toBe("before\n");

    const outside = made(await checkpoints.step("changes outside the agent", { since: step.hash }));
    expect(outside.created).toBe(true);
    expect(outside.changes).toEqual([{ path: "other.txt", status: "modified" }]);
  });

  it("with paths, a new file in a new folder, a deleted file and a file beyond a symlinked folder are all handled", async () => {
    await writeFiles(ws, { "gone.txt": "x\n", "real/inside.txt": "r\n" });
    const checkpoints = await open();
    await checkpoints.step("task start");
    await writeFiles(ws, { "deep/new/file.ts": "new\n" });
    await unlink(path.join(ws, "gone.txt"));
    const step = made(await checkpoints.step("turn 1: write_to_file", { paths: ["deep/new/file.ts", "gone.txt"] }));
    expect(step.changes.sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: "deep/new/file.ts", status: "added" },
      { path: "gone.txt", status: "deleted" },
    ]);
    // A write through a symlinked folder changed the file the link leads to.
    await symlink(path.join(ws, "real"), path.join(ws, "link"));
    made(await checkpoints.step("the link, made by the person"));
    await writeFile(path.join(ws, "link", "inside.txt"), "through the link\n");
    const beyond = made(await checkpoints.step("turn 2: write_to_file", { paths: ["link/inside.txt"] }));
    expect(beyond.changes).toEqual([{ path: "real/inside.txt", status: "modified" }]);
  });

  it("an edit of .gitignore looks at everything, so files it stops ignoring are recorded", async () => {
    await writeFiles(ws, { ".gitignore": "generated/\n", "generated/out.txt": "o\n", "a.txt": "a\n" });
    const checkpoints = await open();
    const start = made(await checkpoints.step("task start"));
    expect(filesInCheckpoint(checkpoints.gitDir, start.hash)).not.toContain("generated/out.txt");
    await writeFile(path.join(ws, ".gitignore"), "");
    const step = made(await checkpoints.step("turn 1: write_to_file", { paths: [".gitignore"] }));
    expect(filesInCheckpoint(checkpoints.gitDir, step.hash)).toContain("generated/out.txt");
  });

  it("ignores paths outside the workspace", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const checkpoints = await open();
    const start = made(await checkpoints.step("task start"));
    const step = made(await checkpoints.step("turn 1: write_to_file", { paths: [path.join(tmp.root, "elsewhere.txt")] }));
    expect(step).toMatchObject({ hash: start.hash, created: false });
  });

  it("reports changes since an older checkpoint when another process made the latest one", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const mine = await open();
    const start = made(await mine.step("task start"));
    await writeFiles(ws, { "b.txt": "by another run\n" });
    const other = await open();
    made(await other.step("turn 1: write_to_file", { paths: ["b.txt"] }));
    const outside = made(await mine.step("changes outside the agent", { since: start.hash }));
    expect(outside.created).toBe(false);
    expect(outside.changes).toEqual([{ path: "b.txt", status: "added" }]);
  });

  it("puts off a first checkpoint of more files than lazyAboveFiles, and makes it when asked without mayDefer", async () => {
    await writeFiles(ws, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, `${i}\n`])));
    const checkpoints = await open(10);
    expect(await checkpoints.step("task start", { mayDefer: true })).toEqual({ kind: "deferred", files: 12 });
    expect(await checkpoints.list()).toEqual([]);
    const start = made(await checkpoints.step("task start"));
    expect(start.changes).toHaveLength(12);
    // Once indexed, the workspace is never put off again.
    await writeFiles(ws, { "f0.txt": "changed\n" });
    expect(made(await checkpoints.step("task start", { mayDefer: true })).created).toBe(true);
  });

  it("says when it indexes many files at once", async () => {
    await writeFiles(ws, Object.fromEntries(Array.from({ length: 1_050 }, (_, i) => [`src/${i % 10}/f${i}.ts`, `${i}\n`])));
    const checkpoints = await open();
    const notices: string[] = [];
    made(await checkpoints.step("task start", { onNotice: (message) => notices.push(message) }));
    expect(notices[0]).toBe("checkpoints: indexing 1,050 files…");
    expect(notices[1]).toMatch(/^checkpoints: indexed 1,050 files in \d+\.\d s$/);
    const quiet: string[] = [];
    await writeFiles(ws, { "src/1/f1.ts": "changed\n" });
    made(await checkpoints.step("turn 1: execute_command", { onNotice: (message) => quiet.push(message) }));
    expect(quiet).toEqual([]);
  });

  it("packs nothing on its own: loose objects stay until packInBackground finds enough of them", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const checkpoints = await open();
    await checkpoints.step("task start");
    await checkpoints.idle();
    const objects = (await readdir(path.join(checkpoints.gitDir, "objects"))).filter((name) => /^[0-9a-f]{2}$/.test(name));
    expect(objects.length).toBeGreaterThan(0);
    checkpoints.packInBackground(); // a handful of objects: not worth a process
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await readdir(path.join(checkpoints.gitDir, "objects", "pack"))).toEqual([]);
  });

  it("packInBackground packs a store with many loose objects in a detached process, and says so with a marker while it runs", async () => {
    // Enough that git's estimate (objects in one of 256 fan-out folders) is surely over the threshold.
    await writeFiles(ws, Object.fromEntries(Array.from({ length: 8_000 }, (_, i) => [`src/${i % 80}/f${i}.ts`, `export const v${i} = ${i};\n`])));
    const checkpoints = await open();
    made(await checkpoints.step("task start"));
    const loose = async () => (await readdir(path.join(checkpoints.gitDir, "objects"))).filter((name) => /^[0-9a-f]{2}$/.test(name));
    expect((await loose()).length).toBeGreaterThan(200);
    checkpoints.packInBackground();
    expect((await readdir(checkpoints.gitDir)).includes("cairn-packing") || (await loose()).length === 0).toBe(true);
    const marker = path.join(checkpoints.gitDir, "cairn-packing");
    for (let waited = 0; existsSync(marker) && waited < 60_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(marker)).toBe(false);
    expect((await readdir(path.join(checkpoints.gitDir, "objects", "pack"))).some((name) => name.endsWith(".pack"))).toBe(true);
    expect(await loose()).toEqual([]);
    // The store still reads: the checkpoint is there, and the next step sees no change.
    expect((await checkpoints.list()).map((c) => c.message)).toEqual(["task start"]);
    expect(made(await checkpoints.step("turn 1: execute_command")).created).toBe(false);
  }, 90_000);

  it("paths are data to git, never shell code: names with quotes, $( ), backticks and newlines are recorded as they are", async () => {
    const checkpoints = await open();
    await checkpoints.step("task start");
    const names = ["x'; touch pwned-quote; '.txt", "$(touch pwned-subst).txt", "`touch pwned-tick`.txt", "line\nbreak; touch pwned-newline.txt", "-rf.txt"];
    for (const name of names) await writeFile(path.join(ws, name), "content\n");
    const step = made(await checkpoints.step("turn 1: write_to_file", { paths: names }));
    expect(step.changes.map((c) => c.path).sort()).toEqual([...names].sort());
    expect(filesInCheckpoint(checkpoints.gitDir, step.hash).sort()).toEqual([...names].sort());
    const everywhere = [ws, tmp.root, process.cwd()].flatMap((dir) => ["pwned-quote", "pwned-subst", "pwned-tick", "pwned-newline.txt"].map((f) => path.join(dir, f)));
    expect(everywhere.filter((file) => existsSync(file))).toEqual([]);
    // A NUL cannot name a file: such a path is not handed to git; the step looks at everything instead.
    await writeFile(path.join(ws, "after.txt"), "after\n");
    const withNul = made(await checkpoints.step("turn 2: write_to_file", { paths: ["after.txt\0'; touch pwned-nul; '"] }));
    expect(withNul.changes).toEqual([{ path: "after.txt", status: "added" }]);
    expect(existsSync(path.join(ws, "pwned-nul"))).toBe(false);
  });

  it("a folder the step created is a path like any other", async () => {
    const checkpoints = await open();
    await checkpoints.step("task start");
    await mkdir(path.join(ws, "made"), { recursive: true });
    await writeFiles(ws, { "made/one.txt": "1\n", "made/two.txt": "2\n" });
    const step = made(await checkpoints.step("turn 1: write_to_file", { paths: ["made"] }));
    expect(step.changes.map((c) => c.path).sort()).toEqual(["made/one.txt", "made/two.txt"]);
  });
});
