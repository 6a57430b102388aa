import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Terminal, useTerminal } from "../terminal/index.js";
import { executeCommandTool } from "./execute-command.js";
import { testContext } from "./test-context.js";
import type { ToolContext, ToolResult } from "./tool.js";

let base: string;
let ws: string;
let terminal: Terminal;
let ctx: ToolContext;
let emitted: string[];

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-exec-")));
  ws = path.join(base, "ws");
  await mkdir(ws);
  emitted = [];
  ctx = testContext(ws, { scratchDir: path.join(base, "scratch"), emitOutput: (text) => emitted.push(text) });
  terminal = new Terminal({
    scratchDir: ctx.scratchDir,
    timing: { quietMs: 400, silentMs: 600, promptQuietMs: 200, killGraceMs: 500, lingerMs: 100, emitIntervalMs: 20 },
  });
  useTerminal(terminal);
});

afterEach(async () => {
  await terminal.dispose();
  await rm(base, { recursive: true, force: true });
});

function exec(input: { command: string; requires_approval?: boolean; timeout?: number }, context = ctx): Promise<ToolResult> {
  const parsed = executeCommandTool.parameters.parse({ requires_approval: false, ...input });
  return executeCommandTool.execute(parsed, context);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
}

describe("execute_command", () => {
  it("returns the command, its exit code and its output", async () => {
    expect(await exec({ command: "echo hello; echo oops >&2" })).toEqual({
      content: "Exit code: 0\nOutput:\nhello\noops\n",
    });
  });

  it("reports a failing command as a result to read, not as a tool error", async () => {
    const result = await exec({ command: "echo 'test failed: expected 2' >&2; exit 3" });
    expect(result).toEqual({ content: "Exit code: 3\nOutput:\ntest failed: expected 2\n" });
  });

  it("says when there was no output, and when a signal ended the command", async () => {
    expect((await exec({ command: "true" })).content).toBe("Exit code: 0\nOutput:\n(no output)");
    expect((await exec({ command: "kill -TERM $$" })).content).toBe(
      "Exit code: none (ended by signal SIGTERM)\nOutput:\n(no output)",
    );
  });

  it("runs in a subfolder with cd && ...", async () => {
    await mkdir(path.join(ws, "sub"));
    expect((await exec({ command: "cd sub && pwd" })).content).toBe(`Exit code: 0\nOutput:\n${ws}/sub\n`);
  });

  it("streams the output to the host while the command runs", async () => {
    await exec({ command: "echo one; sleep 0.1; echo two" });
    expect(emitted.join("")).toBe("one\ntwo\n");
  });

  it("stops a command at a prompt and tells the model how to answer instead", async () => {
    const result = await exec({ command: "printf 'Project name: '; sleep 1000" });
    expect(result).toEqual({
      content:
        "The command stopped at what looks like a prompt for input: 'Project name:'. Commands cannot read input here; pass the answer as a flag (e.g. --yes) or via a pipe/file.\nOutput:\nProject name: ",
      isError: true,
    });
  });

  it("notes a prompt a command printed before taking no answer", async () => {
    const script = "require('readline').createInterface({input:process.stdin,output:process.stdout}).question('Continue? (y/n) ', () => {})";
    const result = await exec({ command: `node -e "${script}"` });
    expect(result.isError).toBeUndefined();
    expect(result.content).toContain(
      "Exit code: 0\nNote: the output ends with what looks like a prompt for input: 'Continue? (y/n)'. Commands get no input here (stdin is empty), so it got no answer; pass the answer as a flag (e.g. --yes) or via a pipe/file.\nOutput:\nContinue? (y/n) ",
    );
  });

  it("moves a long-running command to the background and says how its output will come", async () => {
    const result = await exec({ command: "echo ready; sleep 1000" });
    const [info] = terminal.list();
    expect(info).toBeDefined();
    const pid = info?.pid ?? 0;
    expect(result.isError).toBeUndefined();
    expect(result.content).toMatch(
      new RegExp(
        `^Still running in the background as process #1 \\(pid ${pid}\\) after 0\\.\\ds \\(it stopped printing\\); its later output will be shown to you\\. It is stopped when the task ends; to stop it sooner, run \`kill -TERM -- -${pid}\` \\(its whole process group\\)\\.\\nOutput so far:\\nready\\n$`,
      ),
    );
    expect(isRunning(pid)).toBe(true);
    await terminal.dispose();
    expect(isRunning(pid)).toBe(false);
  });

  it("waits up to the timeout the model gives, even through silence", async () => {
    const waited = await exec({ command: "sleep 1; echo finished", timeout: 5 });
    expect(waited.content).toBe("Exit code: 0\nOutput:\nfinished\n");
    const cut = await exec({ command: "echo tick; sleep 1000", timeout: 0.5 });
    expect(cut.content).toMatch(/after 0\.\ds \(the time to wait ran out\)/);
  });

  it("kills the command when the task is stopped, and returns what it had", async () => {
    const controller = new AbortController();
    const aborting = { ...ctx, signal: controller.signal, emitOutput: () => controller.abort() };
    const result = await exec({ command: "echo working; sleep 1000" }, aborting);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^Interrupted after 0\.\ds: the task was stopped, so the command and everything it started were killed\.\nOutput so far:\nworking\n$/,
    );
    expect(terminal.list()).toEqual([]);
    expect((await exec({ command: "echo x" }, { ...ctx, signal: controller.signal })).content).toBe(
      "Not run: the task was stopped.",
    );
  });

  it("bounds a huge output and points to the log with all of it", async () => {
    const result = await exec({ command: "seq 1 2000000" });
    const content = result.content as string;
    expect(content.length).toBeLessThan(45_000);
    expect(content.startsWith("Exit code: 0\nOutput:\n1\n2\n3\n")).toBe(true);
    expect(content.endsWith("1999999\n2000000\n")).toBe(true);
    const logPath = /the full output is in (\S+);/.exec(content)?.[1] ?? "";
    expect(logPath).toBe(path.join(ctx.scratchDir, "command-1.log"));
    const log = await readFile(logPath, "utf8");
    expect(log.length).toBe(14_888_896);
    expect(log.endsWith("\n1999999\n2000000\n")).toBe(true);
  });

  it("is an error when the command cannot start", async () => {
    const result = await exec({ command: "echo hi" }, { ...ctx, cwd: path.join(ws, "gone") });
    expect(result).toEqual({ content: `Cannot run the command: the working folder ${ws}/gone does not exist.`, isError: true });
  });
});

describe("execute_command definition", () => {
  it("is a command tool for act mode that touches no path directly", () => {
    expect(executeCommandTool.kind).toBe("command");
    expect(executeCommandTool.modes).toEqual(["act"]);
    expect(executeCommandTool.access?.({ command: "rm -rf x", requires_approval: true })).toEqual([{ type: "none" }]);
  });

  it("summarizes as the first line of the command", () => {
    const summarize = (command: string) => executeCommandTool.summarize?.({ command, requires_approval: false });
    expect(summarize("npm test")).toBe("$ npm test");
    expect(summarize("cat <<EOF > a.txt\nhello\nEOF")).toBe("$ cat <<EOF > a.txt …");
    expect(summarize(`echo ${"x".repeat(200)}`)).toBe(`$ echo ${"x".repeat(94)}…`);
  });

  it("validates its parameters", () => {
    const { parameters } = executeCommandTool;
    expect(parameters.safeParse({ command: "ls", requires_approval: false }).success).toBe(true);
    expect(parameters.safeParse({ command: "ls" }).success).toBe(false);
    expect(parameters.safeParse({ command: "", requires_approval: false }).success).toBe(false);
    expect(parameters.safeParse({ command: "ls", requires_approval: false, timeout: 601 }).success).toBe(false);
    expect(parameters.safeParse({ command: "ls", requires_approval: false, timeout: 0 }).success).toBe(false);
  });

  it("tells the model the rules it must know", () => {
    const text = executeCommandTool.description;
    expect(text).toMatch(/no input can be given/i);
    expect(text).toContain("`cd` does not carry over");
    expect(text).toContain("moves to the background");
    expect(text).toContain("full log saved to a file");
    expect(text).toMatch(/Example:\n<execute_command>\n<command>.+<\/command>\n<requires_approval>false<\/requires_approval>/);
  });
});
