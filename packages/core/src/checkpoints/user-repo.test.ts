import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Checkpoints } from "./index.js";
import { filesInCheckpoint, read, snapshotTree, tempWorkspace, userGit, writeFiles, type TempWorkspace } from "./test-support.js";

let tmp: TempWorkspace;
let ws: string;
let home: string;
const git = (...args: string[]) => userGit(ws, args, home);
const status = () => git("--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all");

beforeEach(async () => {
  tmp = await tempWorkspace();
  ws = tmp.workspace;
  home = path.join(tmp.root, "home");
  await mkdir(home);
});

afterEach(async () => {
  await tmp.cleanup();
});

/** A repository with history, a stash, a staged change, an untracked file and hooks that leave a mark if run. */
async function personsRepository(): Promise<void> {
  git("init", "-q", "-b", "main");
  git("config", "core.autocrlf", "false");
  await writeFiles(ws, { "src/app.ts": "export const app = 1;\n", "README.md": "# readme\n", ".gitignore": "secret.txt\n" });
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
  await writeFiles(ws, { "README.md": "# readme, stashed edit\n" });
  git("stash", "-q");
  await writeFiles(ws, { "src/app.ts": "export const app = 2;\n", "src/staged.ts": "staged\n", "notes.txt": "untracked\n", "secret.txt": "ignored\n" });
  git("add", "src/staged.ts");
  for (const hook of ["pre-commit", "post-commit", "post-checkout", "pre-push", "post-index-change"]) {
    const file = path.join(ws, ".git", "hooks", hook);
    await writeFile(file, `#!/bin/sh\necho ${hook} >> "${path.join(tmp.root, "hook-ran")}"\n`);
    await chmod(file, 0o755);
  }
}

describe("a workspace that is the person's git repository", () => {
  it("leaves .git byte for byte as it was through create, diff and restore", async () => {
    await personsRepository();
    const dotGitBefore = await snapshotTree(path.join(ws, ".git"));
    const statusBefore = status();
    const stashBefore = git("stash", "list");
    const dotGitAfterReads = await snapshotTree(path.join(ws, ".git"));
    expect(dotGitAfterReads).toEqual(dotGitBefore);

    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const first = await checkpoints.create("first");
    await writeFiles(ws, { "src/app.ts": "export const app = 3;\n", "src/agent-made.ts": "new\n" });
    await rm(path.join(ws, "notes.txt"));
    await checkpoints.create("agent step");
    await checkpoints.diff(first.hash);
    await checkpoints.restore(first.hash);

    expect(await snapshotTree(path.join(ws, ".git"))).toEqual(dotGitBefore);
    expect(existsSync(path.join(tmp.root, "hook-ran"))).toBe(false);
    expect(status()).toBe(statusBefore);
    expect(git("stash", "list")).toBe(stashBefore);
    expect(await read(ws, "src/app.ts")).toBe("export const app = 2;\n");
    expect(await read(ws, "secret.txt")).toBe("ignored\n");
  });

  it("never checkpoints the contents of .git", async () => {
    await personsRepository();
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const first = await checkpoints.create("first");
    const diff = await checkpoints.diff(first.hash);
    expect(diff.files).toEqual([]);
    const { files } = await checkpoints.diff(first.hash);
    expect(files.some((f) => f.path.startsWith(".git/"))).toBe(false);
    // The ignored file is not in the checkpoint: a change to it is not a change.
    await writeFiles(ws, { "secret.txt": "changed\n" });
    expect((await checkpoints.create("second")).changedFiles).toBe(0);
  });
});

describe("isolation from the person's git settings and environment", () => {
  const saved = { ...process.env };

  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it("ignores global config (hooks, signing, fsmonitor, filters) and inherited GIT_* variables", async () => {
    const marker = path.join(tmp.root, "user-config-ran");
    const script = path.join(tmp.root, "mark.sh");
    await writeFile(script, `#!/bin/sh\necho "$0 $@" >> "${marker}"\nexit 1\n`);
    await chmod(script, 0o755);
    const hooks = path.join(tmp.root, "global-hooks");
    await mkdir(hooks);
    for (const hook of ["pre-commit", "post-commit", "post-index-change", "reference-transaction"]) {
      await writeFile(path.join(hooks, hook), `#!/bin/sh\n"${script}" ${hook}\n`);
      await chmod(path.join(hooks, hook), 0o755);
    }
    const excludes = path.join(tmp.root, "person-excludes");
    await writeFile(excludes, "*.txt\n");
    const globalConfig = [
      "[core]",
      `\texcludesFile = ${excludes}`,
      `\thooksPath = ${hooks}`,
      `\tfsmonitor = ${script}`,
      "\tautocrlf = true",
      "[commit]\n\tgpgsign = true",
      "[user]\n\tsigningkey = ABCDEF",
      `[gpg]\n\tprogram = ${script}`,
      `[filter "mark"]\n\tclean = ${script} clean\n\tsmudge = ${script} smudge\n\trequired = true`,
    ].join("\n");
    await writeFile(path.join(home, ".gitconfig"), globalConfig);
    const elsewhere = path.join(tmp.root, "elsewhere");
    await mkdir(elsewhere);
    process.env.HOME = home;
    process.env.GIT_CONFIG_GLOBAL = path.join(home, ".gitconfig");
    process.env.GIT_DIR = path.join(elsewhere, ".git");
    process.env.GIT_WORK_TREE = elsewhere;
    process.env.GIT_INDEX_FILE = path.join(elsewhere, "index");
    process.env.GIT_AUTHOR_NAME = "Should Not Appear";
    process.env.GIT_OBJECT_DIRECTORY = path.join(elsewhere, "objects");
    process.env.GIT_CONFIG_COUNT = "1";
    process.env.GIT_CONFIG_KEY_0 = "core.excludesFile";
    process.env.GIT_CONFIG_VALUE_0 = excludes;

    const crlf = "line one\r\nline two\r\n";
    await writeFiles(ws, { ".gitattributes": "* filter=mark\n*.txt text eol=crlf\n", "a.txt": crlf, "lf.txt": "lf only\n" });
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash).sort()).toEqual([".gitattributes", "a.txt", "lf.txt"]);
    await writeFiles(ws, { "a.txt": "overwritten\n", "lf.txt": "changed\n" });
    await checkpoints.create("second");
    await checkpoints.restore(first.hash);

    expect(existsSync(marker) ? await readFile(marker, "utf8") : "").toBe("");
    expect(await readFile(path.join(ws, "a.txt"), "utf8")).toBe(crlf);
    expect(await readFile(path.join(ws, "lf.txt"), "utf8")).toBe("lf only\n");
    expect(existsSync(elsewhere + "/.git")).toBe(false);
    expect(existsSync(elsewhere + "/index")).toBe(false);
    expect(existsSync(elsewhere + "/objects")).toBe(false);
    const author = userGit(ws, ["--git-dir", checkpoints.gitDir, "log", "-1", "--format=%an <%ae>"], home);
    expect(author.trim()).toBe("Cairn <checkpoints@cairn.invalid>");
  });
});
