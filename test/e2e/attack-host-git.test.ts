import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, tempDir, type CliRun } from "../support/cairn-cli.js";
import { approvalsAsked } from "../support/tool-call-events.js";

/**
 * Cairn runs git itself, on the host and outside the sandbox: `ls-files` whenever a command is
 * proposed and an ignore file exists (to warn that git history holds blocked files), and the
 * @git-changes / @<commit> mentions. The repository is the attacker: a downloaded project's
 * .git/config, or a git folder a command planted, names programs git would run. Each trap writes a
 * marker outside the workspace; none may appear, while the same git answers still reach the person
 * and the model. Each test ends by running plain git on the same repository, proving the traps live.
 */
const fx = useE2eFixture();
let outside: ReturnType<typeof tempDir>;
beforeEach(() => {
  outside = tempDir("host-git-traps");
});
afterEach(() => outside.cleanup());

const SECRET = "DB_PASSWORD=hunter2-host-git";
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const command = (text: string): ScriptedTurn => call("execute_command", { command: text, requires_approval: false });
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=a", "-c", "commit.gpgsign=false", ...args], { cwd: fx.workspace.dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
const markers = () => path.join(outside.dir, "markers");
const fired = () => (existsSync(markers()) ? readdirSync(markers()).sort() : []);

/** A script that records its name as a marker and passes its input through (a filter or textconv still "works"). */
function trap(name: string): string {
  const script = path.join(outside.dir, `${name}.sh`);
  writeFileSync(script, `#!/bin/sh\nmkdir -p ${markers()}\ntouch ${markers()}/${name}\ncat 2>/dev/null\nexit 0\n`);
  chmodSync(script, 0o755);
  return script;
}

/** The repository config of a downloaded project that runs code under git: every way at once. */
function trappedConfig(): string {
  const hooks = path.join(outside.dir, "hooks");
  mkdirSync(hooks, { recursive: true });
  for (const hook of ["post-index-change", "pre-commit", "post-commit", "reference-transaction"]) {
    writeFileSync(path.join(hooks, hook), `#!/bin/sh\nmkdir -p ${markers()}\ntouch ${markers()}/hook-${hook}\n`);
    chmodSync(path.join(hooks, hook), 0o755);
  }
  return [
    "[core]",
    "\trepositoryformatversion = 0",
    "\tbare = false",
    `\tfsmonitor = ${trap("fsmonitor")}`,
    `\thooksPath = ${hooks}`,
    `\tpager = ${trap("pager")}`,
    "[diff]",
    `\texternal = ${trap("diff-external")}`,
    '[diff "trap"]',
    `\ttextconv = ${trap("textconv")}`,
    '[filter "trap"]',
    `\tclean = ${trap("filter-clean")}`,
    `\tsmudge = ${trap("filter-smudge")}`,
    "[log]",
    "\tshowSignature = true",
    "[gpg]",
    `\tprogram = ${trap("gpg")}`,
    "",
  ].join("\n");
}

/**
 * A project with history: .env committed before it was ignored (so the tracked-and-ignored warning
 * is due), app.txt under a filter and diff driver, then changed in the working tree.
 */
function project(): string {
  git("init", "-q", "-b", "main");
  writeFileSync(path.join(fx.workspace.dir, ".env"), `${SECRET}\n`);
  writeFileSync(path.join(fx.workspace.dir, ".gitattributes"), "*.txt filter=trap diff=trap\n");
  writeFileSync(path.join(fx.workspace.dir, "app.txt"), "COMMITTED-LINE\n");
  git("add", "-A");
  git("commit", "-qm", "first");
  // Signed (the signature need not verify): log.showSignature would have git run gpg.program on it.
  const signed = git("cat-file", "commit", "HEAD").replace(/^(committer .*)$/m, "$1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----");
  const hash = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], { cwd: fx.workspace.dir, input: signed, encoding: "utf8" }).trim();
  git("update-ref", "refs/heads/main", hash);
  writeFileSync(path.join(fx.workspace.dir, "app.txt"), "COMMITTED-LINE\nNEW-WORKING-LINE\n");
  writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), ".env\n");
  return git("rev-parse", "HEAD").trim();
}

async function runTask(task: string, turns: ScriptedTurn[]): Promise<CliRun> {
  fx.server = await startScriptedModelServer({ turns: [...turns, call("attempt_completion", { result: "done" })] });
  return runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "read,safe-commands", "--json", task], {
    env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    timeoutMs: 90_000,
  });
}

const firstRequest = () => JSON.stringify(fx.server.requests[0]!.body);
const statuses = (run: CliRun) => run.events.filter((e) => e.type === "tool_call_update" && "content" in e && e.name === "execute_command").map((e) => e.status);

/** Plain git as the person would run it, on the same repository: each trap named must fire. */
function expectTrapsLive(names: string[]) {
  for (const args of [["status"], ["diff", "HEAD"], ["diff", "--no-ext-diff", "HEAD"], ["log", "-1"]]) {
    try {
      git(...args);
    } catch {
      // a trap may make git fail; what counts is whether it ran
    }
  }
  expect(fired()).toEqual(expect.arrayContaining(names));
}

describe("git Cairn runs on the person's repository runs none of the repository's programs", () => {
  it("a proposed command: the tracked-and-ignored warning is still given, nothing the config names runs", async () => {
    project();
    writeFileSync(path.join(fx.workspace.dir, ".git", "config"), trappedConfig());
    const run = await runTask("look at the history", [command("git show HEAD:.env"), command("echo between")]);
    expect(run.code, run.stderr).toBe(0);
    expect(fired()).toEqual([]);
    // Control: ls-files answered through host git, so the command that prints history was held for the person.
    expect(statuses(run)).toEqual(["denied", "completed"]);
    expect(approvalsAsked(run.events).map((a) => String(a.summary))).toEqual([expect.stringContaining("stored copies of files the ignore rules block")]);
    expect(run.stdout).not.toContain("hunter2-host-git");
    expectTrapsLive(["fsmonitor", "hook-post-index-change", "diff-external", "textconv", "filter-clean"]);
  });

  it("@git-changes and @<commit>: the diff and the commit reach the model, nothing the config names runs", async () => {
    const head = project();
    writeFileSync(path.join(fx.workspace.dir, ".git", "config"), trappedConfig());
    const run = await runTask(`review @git-changes and @${head.slice(0, 10)}`, []);
    expect(run.code, run.stderr).toBe(0);
    expect(fired()).toEqual([]);
    // Control: both mentions expanded, with the real diff text (no driver rewrote it).
    const sent = firstRequest();
    expect(sent).toContain("<git_working_state>");
    expect(sent).toContain("+NEW-WORKING-LINE");
    expect(sent).toContain(`<git_commit hash=\\"${head}\\"`);
    expect(sent).toContain("+COMMITTED-LINE");
    expect(sent).not.toContain("hunter2-host-git");
    expectTrapsLive(["fsmonitor", "diff-external", "textconv", "filter-clean", "gpg"]);
  });

  it("a commondir planted into the working tree (reviewer's t3): Cairn's git refuses it and runs nothing", async () => {
    project();
    // What a command could do if .git were writable, done here on disk: a copy of the git folder
    // with a trapped config, inside the workspace, and .git/commondir pointing at it.
    const evil = path.join(fx.workspace.dir, "evil");
    mkdirSync(evil);
    for (const part of ["objects", "refs", "HEAD"]) cpSync(path.join(fx.workspace.dir, ".git", part), path.join(evil, part), { recursive: true });
    writeFileSync(path.join(evil, "config"), trappedConfig());
    writeFileSync(path.join(fx.workspace.dir, ".git", "commondir"), "../evil\n");
    const run = await runTask("review @git-changes", [command("git show HEAD:.env"), command("echo between")]);
    expect(run.code, run.stderr).toBe(0);
    expect(fired()).toEqual([]);
    // The refusal is said, with where to look; and the history command is still held for the person.
    expect(firstRequest()).toContain(`@git-changes was not expanded: the repository's shared git folder is ${evil}, inside the working tree`);
    expect(statuses(run)).toEqual(["denied", "completed"]);
    expect(run.stdout).not.toContain("hunter2-host-git");
    expectTrapsLive(["fsmonitor", "hook-post-index-change"]);
  });

  it("a config include (a file a background command could swap between git's reads): Cairn's git refuses the repository, says why, and runs nothing; without the include, @git-changes expands", async () => {
    project();
    // The reviewer's R5: .git/config includes ../inc.cfg, a file in the working tree that a command
    // can rewrite between Cairn's one listing of the config and the git diff that reads it again.
    writeFileSync(path.join(fx.workspace.dir, "inc.cfg"), trappedConfig());
    const plainConfig = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";
    writeFileSync(path.join(fx.workspace.dir, ".git", "config"), `${plainConfig}[include]\n\tpath = ../inc.cfg\n`);
    const run = await runTask("review @git-changes", []);
    expect(run.code, run.stderr).toBe(0);
    expect(fired()).toEqual([]);
    const reason = "the repository's own config includes another file (include.path = ../inc.cfg)";
    expect(firstRequest()).toContain(`@git-changes was not expanded: ${reason}`);
    expect(firstRequest()).not.toContain("+NEW-WORKING-LINE");
    expect(run.stdout).toContain(reason);
    expect(run.stdout).toContain("remove the include");

    // Control: the same repository without the include; the mention expands with the real diff.
    writeFileSync(path.join(fx.workspace.dir, ".git", "config"), plainConfig);
    const control = await runTask("review @git-changes", []);
    expect(control.code, control.stderr).toBe(0);
    expect(firstRequest()).toContain("<git_working_state>");
    expect(firstRequest()).toContain("+NEW-WORKING-LINE");
    expect(fired()).toEqual([]);
    // And the include was live: plain git, with it back, runs the included filter.
    writeFileSync(path.join(fx.workspace.dir, ".git", "config"), `${plainConfig}[include]\n\tpath = ../inc.cfg\n`);
    expectTrapsLive(["fsmonitor", "filter-clean"]);
  });
});
