import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readlink, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Checkpoints, CheckpointStoreDamagedError } from "./index.js";
import { read, tempWorkspace, writeFiles, type TempWorkspace } from "./test-support.js";

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

describe("restore keeps what Cairn did not do", () => {
  it("keeps files no step of Cairn's changed, unless asked; a 'before restore' checkpoint undoes either", async () => {
    await writeFiles(ws, { "a.txt": "a0\n" });
    const checkpoints = await open();
    const start = await checkpoints.create("task start");
    await writeFiles(ws, { "a.txt": "a1\n" });
    const step = await checkpoints.create("turn 1: write_to_file");
    await writeFiles(ws, { "notes.txt": "mine\n" });
    const laterSteps = [{ hash: step.hash, label: "turn 1: write_to_file" }];

    const preview = await checkpoints.previewRestore(start.hash, { laterSteps });
    expect(preview.untouched).toEqual([{ path: "notes.txt", change: "remove" }]);
    const kept = await checkpoints.restore(start.hash, { laterSteps });
    expect(await read(ws, "a.txt")).toBe("a0\n");
    expect(await read(ws, "notes.txt")).toBe("mine\n");
    expect(kept).toMatchObject({ restored: 1, removed: 0, untouchedRestored: false, untouched: [{ path: "notes.txt", change: "remove" }] });

    const all = await checkpoints.restore(start.hash, { laterSteps, untouched: "restore" });
    expect(existsSync(path.join(ws, "notes.txt"))).toBe(false);
    await checkpoints.restore(all.before.hash, { laterSteps: [{ hash: all.after!.hash, label: "restored to checkpoint 1" }] });
    expect(await read(ws, "notes.txt")).toBe("mine\n");
  });

  it("never deletes an ignored file standing where the checkpoint had a file or a folder", async () => {
    await writeFiles(ws, { report: "a file\n", "cache/x.txt": "x\n" });
    const checkpoints = await open();
    const start = await checkpoints.create("start");
    await rm(path.join(ws, "report"));
    await rm(path.join(ws, "cache"), { recursive: true });
    await writeFiles(ws, { "report/made.txt": "made\n", "report/keys.env": "SECRET\n", ".gitignore": "cache\n*.env\n", cache: "ignored file\n" });
    await checkpoints.create("turn 1: execute_command");

    const result = await checkpoints.restore(start.hash);
    expect(await read(ws, "report/keys.env")).toBe("SECRET\n");
    expect(existsSync(path.join(ws, "report/made.txt"))).toBe(false);
    expect(await read(ws, "cache")).toBe("ignored file\n");
    expect(result.leftAlone).toEqual(expect.arrayContaining(["report", "cache/x.txt"]));
  });
});

describe("a folder replaced by a symlink", () => {
  it("is checkpointed as a link without following it, and restores both ways", async () => {
    const outside = path.join(tmp.root, "outside");
    await mkdir(outside);
    await writeFile(path.join(outside, "o.txt"), "outside\n");
    await writeFiles(ws, { "src/a.ts": "a\n" });
    const checkpoints = await open();
    const one = await checkpoints.create("one");
    await rm(path.join(ws, "src"), { recursive: true });
    await symlink(outside, path.join(ws, "src"));
    const two = await checkpoints.create("two");
    const tree = execFileSync("git", ["--git-dir", checkpoints.gitDir, "ls-tree", "-r", two.hash], { encoding: "utf8" });
    expect(tree).toMatch(/^120000 blob \w+\tsrc$/m);
    expect(tree).not.toContain("o.txt");
    expect((await checkpoints.create("three")).changedFiles).toBe(0);

    await checkpoints.restore(one.hash);
    expect((await lstat(path.join(ws, "src"))).isDirectory()).toBe(true);
    expect(await read(ws, "src/a.ts")).toBe("a\n");
    expect(await readdir(outside)).toEqual(["o.txt"]);
    await checkpoints.restore(two.hash);
    expect(await readlink(path.join(ws, "src"))).toBe(outside);
  });
});

describe("a damaged store", () => {
  it("fails to open with one line naming it; a damaged index is only rebuilt", async () => {
    await writeFiles(ws, { "a.txt": "a\n" });
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    await checkpoints.idle();
    await writeFile(path.join(checkpoints.gitDir, "index"), "garbage");
    await writeFiles(ws, { "a.txt": "b\n" });
    expect((await checkpoints.create("after a bad index")).changedFiles).toBe(1);
    await checkpoints.restore(first.hash);
    expect(await read(ws, "a.txt")).toBe("a\n");

    await writeFile(path.join(checkpoints.gitDir, "HEAD"), "garbage\n");
    const failure = await open().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CheckpointStoreDamagedError);
    expect((failure as Error).message).toMatch(new RegExp(`^the checkpoint store at ${checkpoints.gitDir} is damaged \\(not a git repository.*\\); .*move .* aside`));
    expect((failure as Error).message).not.toContain("\n");
    await rm(checkpoints.gitDir, { recursive: true }); // moved aside: the next open starts afresh
    await expect(open()).resolves.toBeInstanceOf(Checkpoints);
  });
});
