import { existsSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Checkpoints } from "./index.js";
import { bulkThreshold } from "./stage.js";
import { filesInCheckpoint, read, snapshotTree, tempWorkspace, userGit, writeFiles, type TempWorkspace } from "./test-support.js";

let tmp: TempWorkspace;
let ws: string;
let home: string;

beforeEach(async () => {
  tmp = await tempWorkspace();
  ws = tmp.workspace;
  home = path.join(tmp.root, "home");
  await mkdir(home);
});

afterEach(async () => {
  await tmp.cleanup();
});

const open = () => Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });

/** A repository inside the workspace; with `commit`, it has history (git would otherwise stage it as a gitlink). */
async function nestedRepo(folder: string, files: Record<string, string>, commit: boolean): Promise<void> {
  const dir = path.join(ws, folder);
  await mkdir(dir, { recursive: true });
  userGit(dir, ["init", "-q"], home);
  await writeFiles(dir, files);
  if (commit) {
    userGit(dir, ["add", "-A"], home);
    userGit(dir, ["commit", "-q", "-m", "vendored"], home);
  }
}

/** Every `.git` (folder or file) anywhere under the workspace, and anything named like Cline's renamed ones. */
async function gitEntries(): Promise<string[]> {
  const entries = (await readdir(ws, { recursive: true })) as string[];
  return entries.filter((entry) => /(^|\/)\.git(_disabled)?$/.test(entry)).sort();
}

describe("nested repositories", () => {
  it("checkpoints a nested repository's files as plain files and restores them", async () => {
    await writeFiles(ws, { "main.ts": "main\n" });
    await nestedRepo("vendor/lib", { "lib.ts": "v1\n", "src/deep.ts": "deep v1\n" }, true);
    const nestedGitBefore = await snapshotTree(path.join(ws, "vendor/lib/.git"));
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual(["main.ts", "vendor/lib/lib.ts", "vendor/lib/src/deep.ts"]);

    await writeFiles(ws, { "vendor/lib/lib.ts": "v2\n", "vendor/lib/added.ts": "added\n" });
    await rm(path.join(ws, "vendor/lib/src/deep.ts"));
    const second = await checkpoints.create("agent edited the vendored lib");
    expect(second.changedFiles).toBe(3);

    await checkpoints.restore(first.hash);
    expect(await read(ws, "vendor/lib/lib.ts")).toBe("v1\n");
    expect(await read(ws, "vendor/lib/src/deep.ts")).toBe("deep v1\n");
    expect(existsSync(path.join(ws, "vendor/lib/added.ts"))).toBe(false);
    expect(await snapshotTree(path.join(ws, "vendor/lib/.git"))).toEqual(nestedGitBefore);
    expect(await gitEntries()).toEqual(["vendor/lib/.git"]);
  });

  it("handles a nested repository with no commit yet (git add alone fails on it)", async () => {
    await writeFiles(ws, { "main.ts": "main\n" });
    await nestedRepo("fresh", { "a.txt": "a1\n" }, false);
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual(["fresh/a.txt", "main.ts"]);
    await writeFiles(ws, { "fresh/a.txt": "a2\n" });
    await checkpoints.restore(first.hash);
    expect(await read(ws, "fresh/a.txt")).toBe("a1\n");
    expect(await gitEntries()).toEqual(["fresh/.git"]);
  });

  it("picks up a repository cloned into the workspace later, deep inside a new folder, and repositories inside it", async () => {
    await writeFiles(ws, { "main.ts": "main\n" });
    const checkpoints = await open();
    await checkpoints.create("before the clone");
    await nestedRepo("third_party/libs/outer", { "o.ts": "outer\n" }, true);
    await nestedRepo("third_party/libs/outer/inner", { "i.ts": "inner\n" }, false);

    const second = await checkpoints.create("after the clone");
    expect(second.changedFiles).toBe(2);
    expect(filesInCheckpoint(checkpoints.gitDir, second.hash).sort()).toEqual([
      "main.ts",
      "third_party/libs/outer/inner/i.ts",
      "third_party/libs/outer/o.ts",
    ]);
    // Later changes inside it are seen by the ordinary scan.
    await writeFiles(ws, { "third_party/libs/outer/inner/j.ts": "j\n" });
    expect((await checkpoints.create("third")).changedFiles).toBe(1);
  });

  it("applies a nested repository's .gitignore and the heavy-folder rules inside it", async () => {
    await nestedRepo(
      "vendor/app",
      { ".gitignore": "cache/\n*.tmp\n", "index.ts": "i\n", "cache/c.txt": "c\n", "x.tmp": "t\n", "node_modules/m/i.js": "m\n" },
      true,
    );
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual(["vendor/app/.gitignore", "vendor/app/index.ts"]);
  });

  it("handles a submodule whose .git is a file pointing into the parent repository", async () => {
    const upstream = path.join(tmp.root, "upstream");
    await mkdir(upstream);
    userGit(upstream, ["init", "-q"], home);
    await writeFile(path.join(upstream, "sub.ts"), "sub v1\n");
    userGit(upstream, ["add", "-A"], home);
    userGit(upstream, ["commit", "-q", "-m", "sub"], home);
    userGit(ws, ["init", "-q"], home);
    userGit(ws, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "modules/sub"], home);
    const dotGitBefore = await snapshotTree(path.join(ws, ".git"));

    const checkpoints = await open();
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash)).toContain("modules/sub/sub.ts");
    await writeFiles(ws, { "modules/sub/sub.ts": "sub v2\n" });
    await checkpoints.restore(first.hash);
    expect(await read(ws, "modules/sub/sub.ts")).toBe("sub v1\n");
    expect(await snapshotTree(path.join(ws, ".git"))).toEqual(dotGitBefore);
  });

  it("does the same when many files change at once (the bulk `git add` path)", async () => {
    const many = Object.fromEntries(Array.from({ length: bulkThreshold + 50 }, (_, i) => [`src/f${i}.ts`, `${i}\n`]));
    await writeFiles(ws, many);
    await nestedRepo("vendor/committed", { "c.ts": "c1\n" }, true);
    await nestedRepo("vendor/empty", { "e.ts": "e1\n" }, false);
    const checkpoints = await open();
    const first = await checkpoints.create("first");
    const files = filesInCheckpoint(checkpoints.gitDir, first.hash);
    expect(files).toHaveLength(bulkThreshold + 52);
    expect(files).toContain("vendor/committed/c.ts");
    expect(files).toContain("vendor/empty/e.ts");

    await writeFiles(ws, { "vendor/committed/c.ts": "c2\n", "vendor/empty/e.ts": "e2\n" });
    await checkpoints.restore(first.hash);
    expect(await read(ws, "vendor/committed/c.ts")).toBe("c1\n");
    expect(await read(ws, "vendor/empty/e.ts")).toBe("e1\n");
    expect(await gitEntries()).toEqual(["vendor/committed/.git", "vendor/empty/.git"]);
  });
});
