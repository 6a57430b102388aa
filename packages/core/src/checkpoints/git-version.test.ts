import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support.js";

// The version check runs once per process: each case imports the store afresh, as a new cairn would.
async function openFresh(workspace: string, baseDir: string) {
  vi.resetModules();
  const { Checkpoints } = await import("./index.js");
  return Checkpoints.open({ workspace, baseDir });
}

describe("the git version check, run through the store's own shell", () => {
  let tmp: TempWorkspace;
  let bin: string;
  const savedPath = process.env.PATH;

  beforeEach(async () => {
    tmp = await tempWorkspace();
    bin = path.join(tmp.root, "fake-bin");
    mkdirSync(bin, { recursive: true });
  });
  afterEach(async () => {
    process.env.PATH = savedPath;
    await tmp.cleanup();
  });

  /** A git on PATH that reports `version` and otherwise runs the real git. */
  function fakeGit(version: string): void {
    const file = path.join(bin, "git");
    writeFileSync(file, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "git version ${version}"; exit 0; fi\nexec /usr/bin/git "$@"\n`);
    chmodSync(file, 0o755);
    process.env.PATH = `${bin}:${savedPath}`;
  }

  it("refuses a git older than 2.33 with a line saying what to do, and opens with a new enough one", async () => {
    fakeGit("2.20.1");
    await expect(openFresh(tmp.workspace, tmp.baseDir)).rejects.toThrow("Checkpoints need git 2.33 or newer; found git version 2.20.1. Upgrade git to enable checkpoints.");
    fakeGit("2.39.5");
    const checkpoints = await openFresh(tmp.workspace, tmp.baseDir);
    expect((await checkpoints.create("first")).hash).toMatch(/^[0-9a-f]{40}$/);
  });

  it("says in one line that git could not be run when it is not on PATH (with a shell, and without one)", async () => {
    symlinkSync("/bin/sh", path.join(bin, "sh"));
    process.env.PATH = bin; // sh, but no git
    await expect(openFresh(tmp.workspace, tmp.baseDir)).rejects.toThrow(/^Checkpoints need git, which could not be run \([^\n]*git: not found\)\. Install git 2\.33 or newer\.$/);
    rmSync(path.join(bin, "sh"));
    await expect(openFresh(tmp.workspace, tmp.baseDir)).rejects.toThrow(/^Checkpoints need git, which could not be run \([^\n]*ENOENT\)\. Install git 2\.33 or newer\.$/);
  });
});
