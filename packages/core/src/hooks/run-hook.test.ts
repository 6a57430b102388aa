import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runHook } from "./run-hook.js";
import { hookSandbox, isRunning, on, type HookSandbox } from "./test-support.js";

let box: HookSandbox;

beforeEach(async () => {
  box = await hookSandbox();
});

afterEach(async () => {
  await box.cleanup();
});

async function pidIn(file: string): Promise<number> {
  return Number((await readFile(path.join(box.cwd, file), "utf8")).trim());
}

describe("runHook", () => {
  it("runs in the workspace with the project variables, the event on stdin, without Cairn's API keys", async () => {
    const run = await runHook({
      command: `pwd; echo "$CAIRN_PROJECT_DIR|$CLAUDE_PROJECT_DIR|\${ANTHROPIC_API_KEY:-none}|$FROM_HOST"; cat; echo oops >&2; exit 3`,
      cwd: box.cwd,
      stdin: '{"hook_event_name":"Stop"}',
      timeoutMs: 5_000,
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sk-secret", FROM_HOST: "kept" },
    });
    expect(run).toEqual({
      type: "exited",
      code: 3,
      signal: null,
      stdout: `${box.cwd}\n${box.cwd}|${box.cwd}|none|kept\n{"hook_event_name":"Stop"}`,
      stderr: "oops\n",
    });
  });

  it("reports a hook that cannot start, rather than throwing", async () => {
    const run = await runHook({ command: "true", cwd: path.join(box.cwd, "gone"), stdin: "", timeoutMs: 1_000 });
    expect(run).toEqual({ type: "failed", message: expect.stringContaining("ENOENT") });
  });

  it("does not fail when the hook exits without reading a large stdin", async () => {
    const run = await runHook({ command: "exit 0", cwd: box.cwd, stdin: "x".repeat(1024 * 1024), timeoutMs: 5_000 });
    expect(run).toMatchObject({ type: "exited", code: 0 });
  });

  it("kills the hook and what it started when the timeout passes", async () => {
    const started = performance.now();
    const run = await runHook({ command: `sleep 30 & echo $! > child.pid; echo partial; wait`, cwd: box.cwd, stdin: "", timeoutMs: 300 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(run).toEqual({ type: "timeout", stdout: "partial\n", stderr: "" });
    expect(await isRunning(await pidIn("child.pid"))).toBe(false);
  });

  it("kills a hook that ignores SIGTERM after the grace period", async () => {
    const run = await runHook({ command: `trap '' TERM; echo $$ > shell.pid; while :; do sleep 0.05; done`, cwd: box.cwd, stdin: "", timeoutMs: 200, killGraceMs: 200 });
    expect(run.type).toBe("timeout");
    expect(await isRunning(await pidIn("shell.pid"))).toBe(false);
  });

  it("stops the hook and its children when the signal aborts", async () => {
    const controller = new AbortController();
    const running = runHook({ command: `sleep 30 & echo $! > child.pid; wait`, cwd: box.cwd, stdin: "", timeoutMs: 10_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect(await running).toEqual({ type: "aborted" });
    expect(await isRunning(await pidIn("child.pid"))).toBe(false);
    expect(await runHook({ command: "echo never > ran.txt", cwd: box.cwd, stdin: "", timeoutMs: 1_000, signal: controller.signal })).toEqual({ type: "aborted" });
  });

  it("returns soon after the shell exits even if a process it left behind holds the output open", async () => {
    const started = performance.now();
    const run = await runHook({ command: `sleep 30 & echo $! > child.pid; echo done`, cwd: box.cwd, stdin: "", timeoutMs: 10_000 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(run).toMatchObject({ type: "exited", code: 0, stdout: "done\n" });
    process.kill(await pidIn("child.pid"), "SIGKILL");
  });
});

describe("timeouts through the runner", () => {
  it("turn a hung hook into a notice and let the others decide", async () => {
    await box.settings("project", {
      PreToolUse: [
        ...on(await box.script("hang.sh", "sleep 30 & echo $! > hooks/child.pid; wait"), { timeout: 0.3 }),
        ...on(await box.script("deny.sh", "echo no >&2; exit 2")),
      ],
    });
    const started = performance.now();
    const outcome = await box.load().runner.preToolUse({ ...box.session, toolName: "execute_command", toolInput: { command: "ls" }, toolUseId: "t1" });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(outcome.decision).toBe("deny");
    expect(outcome.notices).toEqual([{ level: "warning", message: expect.stringContaining(`"./hooks/hang.sh" timed out after 0.3 s and was stopped`) }]);
    expect(await isRunning(await pidIn("hooks/child.pid"))).toBe(false);
  });

  it("use the runner's default when a hook has no timeout of its own", async () => {
    await box.settings("project", { Stop: on(await box.script("hang.sh", "sleep 30")) });
    const outcome = await box.load({ runner: { defaultTimeoutMs: 200 } }).runner.stop({ ...box.session, continuations: 0 });
    expect(outcome.block).toBe(false);
    expect(outcome.notices[0]?.message).toContain("timed out after 0.2 s");
  });
});
