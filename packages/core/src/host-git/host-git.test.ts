import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HostGit, openHostGit, parseConfigListing, programOverrides } from "./host-git.js";

let base: string;
let repo: string;
let marker: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-host-git-")));
  repo = path.join(base, "repo");
  marker = path.join(base, "MARKER");
  mkdirSync(repo);
  plain("init", "-q", "-b", "main");
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

/** git as the person runs it (no protections): sets the scene, and is the control that the traps are live. */
function plain(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@e", "-c", "commit.gpgsign=false", ...args], { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
}

function run(git: HostGit, ...args: string[]): string {
  return execFileSync("git", git.argv(args), { cwd: repo, env: git.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function opened(cwd = repo): HostGit {
  const result = openHostGit(cwd);
  if (result.kind !== "repository") throw new Error(`expected a repository, got ${JSON.stringify(result)}`);
  return result.git;
}

/** Every way a repository's config names a program, each one touching the marker. */
function plantTraps(configFile = path.join(repo, ".git", "config")) {
  const script = path.join(base, "trap.sh");
  writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`);
  chmodSync(script, 0o755);
  const hooks = path.join(base, "hooks");
  mkdirSync(hooks, { recursive: true });
  for (const hook of ["post-index-change", "pre-commit", "post-commit", "pre-push", "reference-transaction"]) {
    writeFileSync(path.join(hooks, hook), `#!/bin/sh\necho hook-${hook} >> ${marker}\n`);
    chmodSync(path.join(hooks, hook), 0o755);
  }
  writeFileSync(
    configFile,
    `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ${script}\n\thooksPath = ${hooks}\n\tpager = ${script}\n` +
      `[diff]\n\texternal = ${script}\n[diff "trap"]\n\ttextconv = ${script}\n\tcommand = ${script}\n` +
      `[filter "trap"]\n\tclean = ${script}\n\tsmudge = ${script}\n\trequired = true\n[log]\n\tshowSignature = true\n[gpg]\n\tprogram = ${script}\n`,
  );
}

describe("openHostGit", () => {
  it("runs none of the programs the repository's config names, and git still answers", () => {
    writeFileSync(path.join(repo, ".gitattributes"), "*.txt filter=trap diff=trap\n");
    writeFileSync(path.join(repo, "a.txt"), "one\n");
    plain("add", "-A");
    plain("commit", "-qm", "first");
    plantTraps();
    const target = path.join(base, "target.git");
    execFileSync("git", ["init", "-q", "--bare", target]);
    // A push to this remote would run its receivepack on the host.
    writeFileSync(path.join(repo, ".git", "config"), `[remote "dest"]\n\turl = ${target}\n\treceivepack = ${path.join(base, "trap.sh")}\n`, { flag: "a" });
    writeFileSync(path.join(repo, "a.txt"), "two\n");
    // Control: the traps are live for git as the person runs it.
    plain("diff");
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const git = opened();
    expect(run(git, "ls-files", "-z", "--cached").split("\0")).toContain("a.txt");
    expect(run(git, "diff", "HEAD")).toContain("-one\n+two");
    expect(run(git, "show", "--patch", "HEAD")).toContain("+one");
    expect(run(git, "log", "-1", "--format=%s")).toBe("first\n");
    run(git, "status", "--porcelain");
    run(git, "add", "-A");
    run(git, "commit", "-qm", "second");
    run(git, "push", "-q", "dest", "main:refs/heads/pushed");
    expect(execFileSync("git", ["--git-dir", target, "log", "-1", "--format=%s", "pushed"], { encoding: "utf8" })).toBe("second\n");
    expect(existsSync(marker), existsSync(marker) ? execFileSync("cat", [marker], { encoding: "utf8" }) : "").toBe(false);
  });

  it("refuses a repository whose own config includes a file (git reads it again later, and a command could swap it), and runs nothing", () => {
    writeFileSync(path.join(repo, ".gitattributes"), "*.txt filter=trap\n");
    writeFileSync(path.join(repo, "a.txt"), "one\n");
    plain("add", "-A");
    plain("commit", "-qm", "first");
    plantTraps(path.join(base, "included"));
    const included = path.join(base, "included");
    for (const section of ["[include]", '[includeIf "gitdir:/"]']) {
      writeFileSync(path.join(repo, ".git", "config"), `[core]\n\trepositoryformatversion = 0\n${section}\n\tpath = ${included}\n`);
      writeFileSync(path.join(repo, "a.txt"), "two\n");
      const result = openHostGit(repo);
      expect(result.kind).toBe("refused");
      expect(result.kind === "refused" && result.reason).toContain(`path = ${included}`);
      expect(result.kind === "refused" && result.reason).toContain("remove the include");
    }
    expect(existsSync(marker)).toBe(false);
    // Control: the include is live, git as the person runs it follows it and runs the filter.
    plain("diff", "HEAD", "--stat");
    expect(existsSync(marker)).toBe(true);
  });

  it("accepts includes in the person's global config", () => {
    writeFileSync(path.join(repo, "a.txt"), "one\n");
    plain("add", "-A");
    plain("commit", "-qm", "first");
    const home = path.join(base, "home");
    mkdirSync(home);
    writeFileSync(path.join(home, "more.cfg"), "[user]\n\tname = Included Person\n");
    writeFileSync(path.join(home, ".gitconfig"), `[include]\n\tpath = ${path.join(home, "more.cfg")}\n`);
    const before = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    process.env.HOME = home;
    delete process.env.XDG_CONFIG_HOME;
    try {
      const git = opened();
      writeFileSync(path.join(repo, "a.txt"), "two\n");
      expect(run(git, "diff", "HEAD", "--stat")).toContain("a.txt");
      expect(execFileSync("git", ["config", "user.name"], { cwd: repo, env: git.env, encoding: "utf8" })).toBe("Included Person\n");
    } finally {
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("keeps the work tree where .git is, whatever core.worktree says", () => {
    writeFileSync(path.join(repo, "a.txt"), "one\n");
    plain("add", "-A");
    plain("commit", "-qm", "first");
    const elsewhere = path.join(base, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(path.join(elsewhere, "a.txt"), "SECRET ELSEWHERE\n");
    plain("config", "core.worktree", elsewhere);
    const git = opened();
    expect(git.workTree).toBe(repo);
    expect(run(git, "diff", "HEAD")).not.toContain("SECRET ELSEWHERE");
  });

  it("refuses a commondir that points into the working tree (a command can write there), and runs nothing", () => {
    writeFileSync(path.join(repo, "a.txt"), "one\n");
    plain("add", "-A");
    plain("commit", "-qm", "first");
    const evil = path.join(repo, "evil");
    mkdirSync(evil);
    for (const part of ["objects", "refs", "HEAD"]) cpSync(path.join(repo, ".git", part), path.join(evil, part), { recursive: true });
    plantTraps(path.join(evil, "config"));
    writeFileSync(path.join(repo, ".git", "commondir"), "../evil\n");
    const result = openHostGit(repo);
    expect(result.kind).toBe("refused");
    expect(result.kind === "refused" && result.reason).toContain(`${evil}, inside the working tree`);
    expect(existsSync(marker)).toBe(false);
  });

  it("keeps a linked worktree working (its .git file and commondir point outside it)", () => {
    writeFileSync(path.join(repo, "a.txt"), "one\n");
    plain("add", "-A");
    plain("commit", "-qm", "first");
    const worktree = path.join(base, "wt");
    plain("worktree", "add", "-q", worktree);
    writeFileSync(path.join(worktree, "a.txt"), "changed in worktree\n");
    const git = opened(worktree);
    expect(git.workTree).toBe(worktree);
    expect(execFileSync("git", git.argv(["diff", "HEAD"]), { cwd: worktree, env: git.env, encoding: "utf8" })).toContain("+changed in worktree");
  });

  it("a folder in no repository is none; a subfolder finds the repository above", () => {
    const outside = path.join(base, "plain");
    mkdirSync(outside);
    expect(openHostGit(outside).kind).toBe("none");
    mkdirSync(path.join(repo, "sub"));
    expect(opened(path.join(repo, "sub")).workTree).toBe(repo);
  });

  it("refuses subcommands it has no protections for", () => {
    expect(() => opened().argv(["grep", "x"])).toThrow(/not a subcommand/);
    expect(() => opened().argv(["cat-file", "--textconv", "HEAD:a"])).toThrow(/drivers/);
  });
});

describe("programOverrides", () => {
  it("replaces the repository's programs with the person's own, or with nothing", () => {
    const entries = parseConfigListing(
      ["global", "credential.helper\nstore", "global", "core.sshcommand\nssh -i key", "local", "credential.helper\nevil", "local", "core.sshcommand\nevil", "local", "filter.A=b.clean\nevil", "local", "user.name\nx"].join("\0") + "\0",
    );
    expect(programOverrides(entries)).toEqual([
      ["credential.helper", ""],
      ["credential.helper", "store"],
      ["core.sshcommand", "ssh -i key"],
      ["filter.A=b.clean", ""],
    ]);
  });
});
