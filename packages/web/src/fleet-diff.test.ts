import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { branchDiff } from "./fleet-diff.js";

// Real git: a repository with a base commit, and a job's branch made as a fleet worker makes it
// (one commit on the base), read back through a cache, as the page reads it.
let root: string;
let repo: string;
let cache: string;
const git = (...args: string[]) => execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { encoding: "utf8" });

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "cairn-fleet-diff-"));
  repo = path.join(root, "repo");
  cache = path.join(root, "cache");
  mkdirSync(repo);
  git("init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "keep.txt"), "one\ntwo\nthree\n");
  writeFileSync(path.join(repo, "gone.txt"), "bye\n");
  git("add", "-A");
  git("commit", "-q", "-m", "base");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function jobBranch(branch: string, change: () => void): void {
  git("checkout", "-q", "-B", branch, "main");
  change();
  git("add", "-A");
  git("commit", "-q", "-m", `job on ${branch}`);
  git("checkout", "-q", "main");
}

describe("branchDiff", () => {
  it("gives each changed file's two sides against the branch's base, and says why a binary file is not shown", async () => {
    jobBranch("cairn/j1", () => {
      writeFileSync(path.join(repo, "keep.txt"), "one\nTWO\nthree\n");
      writeFileSync(path.join(repo, "new.txt"), "fresh\n");
      writeFileSync(path.join(repo, "blob.bin"), Buffer.from([0, 1, 2, 3]));
      rmSync(path.join(repo, "gone.txt"));
    });
    const diff = await branchDiff(repo, "cairn/j1", cache);
    if (typeof diff === "string") throw new Error(diff);
    expect(diff.base).toBe(git("rev-parse", "main").trim());
    expect(diff.head).toBe(git("rev-parse", "cairn/j1").trim());
    const byPath = new Map(diff.files.map((f) => [f.path, f]));
    expect([...byPath.keys()].sort()).toEqual(["blob.bin", "gone.txt", "keep.txt", "new.txt"]);
    expect(byPath.get("keep.txt")).toEqual({ path: "keep.txt", status: "modified", old_text: "one\ntwo\nthree\n", new_text: "one\nTWO\nthree\n" });
    expect(byPath.get("new.txt")).toEqual({ path: "new.txt", status: "added", old_text: null, new_text: "fresh\n" });
    expect(byPath.get("gone.txt")).toEqual({ path: "gone.txt", status: "deleted", old_text: "bye\n", new_text: null });
    expect(byPath.get("blob.bin")).toMatchObject({ status: "added", new_text: null, note: "binary file" });
    expect(diff.more_files).toBe(0);
  });

  it("reads the branch as it is now: a job run again (its branch force-pushed) shows the new changes", async () => {
    jobBranch("cairn/j2", () => writeFileSync(path.join(repo, "keep.txt"), "first try\n"));
    const first = await branchDiff(repo, "cairn/j2", cache);
    expect(typeof first !== "string" && first.files[0]?.new_text).toBe("first try\n");
    jobBranch("cairn/j2", () => writeFileSync(path.join(repo, "keep.txt"), "second try\n"));
    const second = await branchDiff(repo, "cairn/j2", cache);
    expect(typeof second !== "string" && second.files[0]?.new_text).toBe("second try\n");
  });

  it("a branch that is not in the repository is one line that names it and the repository", async () => {
    const missing = await branchDiff(repo, "cairn/nope", cache);
    expect(typeof missing).toBe("string");
    expect(missing).toMatch(new RegExp(`^Cannot read cairn/nope from ${repo.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: .+`));
    expect(String(missing).split("\n")).toHaveLength(1);
  });

  it("a repository or branch from Redis that git would read as an option or a transport is refused before git runs", async () => {
    const marker = path.join(root, "MARKER");
    jobBranch("cairn/j3", () => writeFileSync(path.join(repo, "keep.txt"), "changed\n"));
    for (const [hostileRepo, branch] of [
      [`--upload-pack=touch ${marker};`, "cairn/j3"],
      [`ext::sh -c touch% ${marker}`, "cairn/j3"],
      [repo, `--upload-pack=touch ${marker};`],
    ] as const) {
      const refused = await branchDiff(hostileRepo, branch, cache);
      expect(refused).toMatch(/^Cannot show this job's diff: (repository|branch) .+/);
    }
    expect(existsSync(marker)).toBe(false);
    // The same cache still reads a real job's branch.
    const diff = await branchDiff(repo, "cairn/j3", cache);
    expect(typeof diff !== "string" && diff.files[0]?.new_text).toBe("changed\n");
  });
});
