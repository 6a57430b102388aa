import { existsSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSandbox } from "../sandbox/index.js";
import type { CommandSandbox } from "../sandbox/index.js";
import type { PreToolUseInput } from "./events.js";
import { hookSandbox, on, type HookSandbox } from "./test-support.js";

/**
 * The workspace's hooks run in the task's command sandbox (real bubblewrap), the person's own do
 * not; the hook contract (stdin, exit codes, JSON replies, timeouts) is the same in both.
 */
let box: HookSandbox;
let sandbox: CommandSandbox;
/** Outside the workspace and outside /tmp (the sandbox's /tmp is a private one). */
let outside: string;

beforeEach(async () => {
  box = await hookSandbox();
  outside = mkdtempSync("/var/tmp/cairn-hook-outside-");
  const opened = openSandbox({ mode: "workspace-write", network: "off", hiddenPaths: [], writablePaths: [] }, { workspace: box.cwd, cairnHome: box.home, env: process.env });
  if (!opened.ok || !opened.sandbox) throw new Error(`bubblewrap is needed for these tests: ${opened.ok ? JSON.stringify(opened.summary) : opened.error}`);
  sandbox = opened.sandbox;
});

afterEach(async () => {
  rmSync(outside, { recursive: true, force: true });
  await box.cleanup();
});

const call = (toolInput: Record<string, unknown> = { command: "npm test" }): PreToolUseInput => ({ ...box.session, toolName: "execute_command", toolInput, toolUseId: "toolu_1" });

describe("hooks of the workspace's settings, in the sandbox", () => {
  it("may write the workspace but not outside it; the person's own hook may", async () => {
    const write = (name: string) => `cat > /dev/null; touch "${outside}/${name}"; echo $? > "${box.cwd}/${name}.status"`;
    await box.settings("global", { PreToolUse: on(write("from-person")) });
    await box.settings("project", { PreToolUse: on(write("from-workspace")) });
    const outcome = await box.load({ runner: { sandbox } }).runner.preToolUse(call());
    expect(outcome).toEqual({ notices: [] });
    expect(existsSync(path.join(outside, "from-person"))).toBe(true);
    expect(existsSync(path.join(outside, "from-workspace"))).toBe(false);
    expect((await box.read("from-workspace.status")).trim()).not.toBe("0"); // it ran, and its write outside failed
    expect((await box.read("from-person.status")).trim()).toBe("0");
  });

  it("reads the event on stdin and decides with its exit code and its JSON reply, as outside the sandbox", async () => {
    const rewrite = `input=$(cat); case "$input" in *'"npm test"'*) printf '%s' '${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "tests are fine", updatedInput: { command: "npm test -- --ci" } } })}' ;; *) echo "only npm test" >&2; exit 2 ;; esac`;
    await box.settings("project", { PreToolUse: on(await box.script("gate.sh", rewrite)) });
    const { runner } = box.load({ runner: { sandbox } });
    expect(await runner.preToolUse(call())).toMatchObject({ decision: "allow", reason: "tests are fine", updatedInput: { command: "npm test -- --ci" } });
    expect(await runner.preToolUse(call({ command: "rm -rf /" }))).toMatchObject({ decision: "deny", reason: "only npm test" });
  });

  it("on timeout, stops the hook and what it started inside the sandbox", async () => {
    await box.settings("project", { PreToolUse: on(`(sleep 1; touch "${box.cwd}/late.txt") & sleep 30`, { timeout: 0.3 }) });
    const started = performance.now();
    const outcome = await box.load({ runner: { sandbox } }).runner.preToolUse(call());
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(outcome.notices[0]?.message).toContain("timed out after 0.3 s");
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(existsSync(path.join(box.cwd, "late.txt"))).toBe(false);
  });
});
