import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IgnoreRules } from "../../policy/ignore-rules.js";
import { expandMentions, type MentionContext } from "./expand-mentions.js";

let base: string;
let repo: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-git-mentions-")));
  repo = path.join(base, "repo");
  await mkdir(repo);
  git("init", "-q", "-b", "main");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", ...args], { cwd: repo, encoding: "utf8" });
}

async function files(entries: Record<string, string>) {
  for (const [name, content] of Object.entries(entries)) {
    const target = path.join(repo, name);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

async function commit(message: string): Promise<string> {
  git("add", "-A");
  git("commit", "-q", "-m", message);
  return git("rev-parse", "HEAD").trim();
}

function expand(text: string, cwd = repo, extra: Partial<MentionContext> = {}) {
  return expandMentions(text, { cwd, ignore: new IgnoreRules(cwd), ...extra });
}

describe("@git-changes", () => {
  it("shows changed files, untracked files and the diff against HEAD", async () => {
    await files({ "src/a.ts": "one\ntwo\n", "README.md": "hello\n" });
    await commit("first");
    await files({ "src/a.ts": "one\nTWO\n", "notes.txt": "new file\n" });
    const result = await expand("Review @git-changes");
    expect(result.text).toMatch(/^Review @git-changes\n\n<git_working_state>\nChanged files \(against HEAD\):\nM src\/a\.ts\nUntracked files:\n\?\? notes\.txt\n\ndiff --git a\/src\/a\.ts b\/src\/a\.ts\n/);
    expect(result.text).toContain("-two\n+TWO\n</git_working_state>");
    expect(result.mentioned).toEqual(["src/a.ts", "notes.txt"]);
  });

  it("a clean tree, a repository without commits, a folder that is not a repository", async () => {
    await files({ "a.txt": "a\n" });
    await commit("first");
    expect((await expand("@git-changes")).text).toContain("<git_working_state>\nThe working tree is clean: no changes since the last commit.\n</git_working_state>");

    const fresh = path.join(base, "fresh");
    await mkdir(fresh);
    execFileSync("git", ["init", "-q"], { cwd: fresh });
    await writeFile(path.join(fresh, "staged.txt"), "staged\n");
    execFileSync("git", ["add", "staged.txt"], { cwd: fresh });
    const noCommits = await expand("@git-changes", fresh);
    expect(noCommits.text).toContain("Changed files (against an empty tree: there are no commits yet):\nA staged.txt");
    expect(noCommits.text).toContain("+staged");

    const plain = path.join(base, "plain");
    await mkdir(plain);
    expect((await expand("@git-changes", plain)).notes).toEqual(["@git-changes was not expanded: the workspace is not in a git repository."]);
  });

  it("stays inside a workspace that is a subfolder of the repository, and hides blocked files", async () => {
    await files({ "app/main.ts": "main\n", "app/.env": "KEY=old\n", "other/x.ts": "x\n" });
    await commit("first");
    await files({ "app/main.ts": "main changed\n", "app/.env": "KEY=SECRET-VALUE\n", "app/.cairnignore": ".env\n", "other/x.ts": "OUTSIDE-CHANGE\n" });
    const result = await expand("@git-changes", path.join(repo, "app"));
    expect(result.text).toContain("M main.ts");
    expect(result.text).toContain("+main changed");
    expect(result.text).not.toContain("SECRET-VALUE");
    expect(result.text).not.toContain("OUTSIDE-CHANGE");
    expect(result.text).not.toContain("other/x.ts");
    expect(result.text).toContain("[1 changed file is hidden: blocked by .cairnignore.]");
  });

  it("caps a large diff", async () => {
    await files({ "big.txt": "a\n" });
    await commit("first");
    await files({ "big.txt": `${"changed line of text\n".repeat(20_000)}` });
    const result = await expand("@git-changes", repo, { limits: { gitBytes: 4096 } });
    const block = /<git_working_state>([\s\S]*)<\/git_working_state>/.exec(result.text)?.[1] ?? "";
    expect(Buffer.byteLength(block)).toBeLessThan(4096 + 512);
    expect(block).toContain("[The diff is cut here at 4 KB; run git diff on single files for the rest.]");
    expect(result.notes).toEqual(["@git-changes: the diff was cut at 4 KB."]);
  });
});

describe("@<commit hash>", () => {
  it("shows the commit's message, stat and patch", async () => {
    await files({ "lib.ts": "export const x = 1;\n" });
    await commit("first");
    await files({ "lib.ts": "export const x = 2;\n" });
    const hash = await commit("Bump x to two");
    const result = await expand(`What did @${hash.slice(0, 7)} do?`);
    expect(result.text).toContain(`<git_commit hash="${hash}">\ncommit ${hash}`);
    expect(result.text).toContain("Bump x to two");
    expect(result.text).toContain(" lib.ts | 2 +-");
    expect(result.text).toContain("-export const x = 1;\n+export const x = 2;");
    expect(result.mentioned).toEqual(["lib.ts"]);
  });

  it("an unknown hash is a note and stays text", async () => {
    await files({ "a.txt": "a\n" });
    await commit("first");
    const result = await expand("see @deadbeef1");
    expect(result.text).toBe("see @deadbeef1\n\n[@deadbeef1 was not expanded: no commit deadbeef1 in this repository.]");
  });

  it("hides blocked files of the commit", async () => {
    await files({ ".cairnignore": "secret.txt\n", "ok.txt": "ok\n", "secret.txt": "TOP-SECRET\n" });
    const hash = await commit("add files");
    const result = await expand(`@${hash}`);
    expect(result.text).toContain("+ok");
    expect(result.text).not.toContain("TOP-SECRET");
    expect(result.text).toContain("[1 file is hidden: blocked by .cairnignore.]");
    expect(result.mentioned).toEqual([".cairnignore", "ok.txt"]);
  });
});
