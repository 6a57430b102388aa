import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Terminal, terminalFor, useTerminal, type RunRequest, type RunResult } from "./terminal.js";

/** Short periods so tests of waiting take a fraction of a second. */
const timing = { quietMs: 400, silentMs: 600, promptQuietMs: 200, killGraceMs: 500, lingerMs: 100, emitIntervalMs: 20 };

let base: string;
let ws: string;
let scratch: string;
let terminal: Terminal;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-terminal-")));
  ws = path.join(base, "ws");
  scratch = path.join(base, "scratch");
  await mkdir(ws);
  terminal = new Terminal({ scratchDir: scratch, timing });
});

afterEach(async () => {
  await terminal.dispose();
  await rm(base, { recursive: true, force: true });
});

async function run(command: string, extra: Partial<RunRequest> = {}): Promise<Extract<RunResult, { started: true }>> {
  const result = await terminal.run({ command, cwd: ws, ...extra });
  if (!result.started) throw new Error(`did not start: ${result.message}`);
  return result;
}

/** Gone, or a zombie nobody reaps (this container's init does not): either way, not running. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

const node = (script: string) => `"${process.execPath}" -e ${JSON.stringify(script)}`;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Terminal.run: commands that finish", () => {
  it("returns the exit code and stdout and stderr in the order they were written", async () => {
    const result = await run("echo out1; echo err1 >&2; echo out2; echo err2 >&2; exit 7");
    expect(result.outcome).toEqual({ type: "exited", code: 7, signal: null, lingering: false });
    expect(result.output).toBe("out1\nerr1\nout2\nerr2\n");
  });

  it("keeps the order through hundreds of alternating writes", async () => {
    const result = await run('for i in $(seq 1 200); do echo "o$i"; echo "e$i" >&2; done');
    const expected = Array.from({ length: 200 }, (_, i) => `o${i + 1}\ne${i + 1}\n`).join("");
    expect(result.output).toBe(expected);
  });

  it("reports a command ended by a signal", async () => {
    const result = await run("echo before; kill -KILL $$");
    expect(result.outcome).toEqual({ type: "exited", code: null, signal: "SIGKILL", lingering: false });
    expect(result.output).toBe("before\n");
  });

  it("runs in the workspace; cd works within a command and does not carry over", async () => {
    await mkdir(path.join(ws, "sub"));
    expect((await run("cd sub && pwd")).output).toBe(`${ws}/sub\n`);
    expect((await run("pwd")).output).toBe(`${ws}\n`);
  });

  it("sets the non-interactive environment and removes FORCE_COLOR", async () => {
    const result = await run('echo "$CI|$GIT_TERMINAL_PROMPT|$PAGER|$GIT_PAGER|$npm_config_yes|$NO_COLOR|${FORCE_COLOR-unset}"');
    expect(result.output).toBe("1|0|cat|cat|true|1|unset\n");
  });

  it("strips colours and other escape codes from the output", async () => {
    const result = await run("printf '\\033[1;31mred\\033[0m \\033]0;title\\007plain\\n50%%\\r100%%\\n'");
    expect(result.output).toBe("red plain\n100%\n");
  });

  it("gives commands an empty stdin: reading gets end-of-input at once instead of waiting", async () => {
    const started = performance.now();
    const read = await run('read -p "Your name? " x; echo "hi [$x]"');
    expect(read.output).toBe("hi []\n");
    const cat = await run("cat; echo after-cat");
    expect(cat.output).toBe("after-cat\n");
    expect(performance.now() - started).toBeLessThan(timing.silentMs);
  });

  it("notes a prompt left at the end of the output of a command that exited", async () => {
    const script = "require('readline').createInterface({input:process.stdin,output:process.stdout}).question('Overwrite file? (y/n) ', (a) => console.log('answer', a))";
    const result = await run(node(script));
    expect(result.outcome.type).toBe("exited");
    expect(result.output).toBe("Overwrite file? (y/n) ");
    expect(result.trailingPrompt).toBe("Overwrite file? (y/n) ");
    expect((await run("echo 'all good'")).trailingPrompt).toBeUndefined();
  });

  it("reports a working folder that does not exist instead of starting", async () => {
    const result = await terminal.run({ command: "echo hi", cwd: path.join(ws, "missing") });
    expect(result).toEqual({ started: false, message: `Cannot run the command: the working folder ${ws}/missing does not exist.` });
  });

  it("streams output to the caller as it comes, in merged chunks", async () => {
    const chunks: string[] = [];
    const result = await run("for i in $(seq 1 50); do echo line $i; done; sleep 0.1; echo last", {
      onOutput: (text) => chunks.push(text),
    });
    expect(chunks.join("")).toBe(result.output);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.length).toBeLessThan(20);
  });
});

describe("Terminal.run: big output", () => {
  it("returns head and tail of 8 MB of output and saves all of it to the log", async () => {
    const result = await run("yes 'some line of output' | head -c 8000000; echo; echo the end");
    expect(result.outcome).toMatchObject({ type: "exited", code: 0 });
    expect(result.output.length).toBeLessThan(45_000);
    expect(result.output.startsWith("some line of output\n")).toBe(true);
    expect(result.output.endsWith("\nthe end\n")).toBe(true);
    expect(result.logPath).toBe(path.join(scratch, `command-${result.id}.log`));
    expect(result.output).toContain(`\n[... 399,502 lines (7.6 MB) cut from the middle of the output; the full output is in ${result.logPath};`);
    const log = await stat(result.logPath ?? "");
    expect(log.size).toBe(8_000_000 + "\nthe end\n".length);
  });

  it("numbers logs after those already in the scratch folder", async () => {
    await mkdir(scratch, { recursive: true });
    await writeFile(path.join(scratch, "command-41.log"), "from before");
    const result = await run("seq 1 5000");
    expect(result.id).toBe(42);
    expect(await readFile(path.join(scratch, "command-42.log"), "utf8")).toBe(
      Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join(""),
    );
    expect(await readFile(path.join(scratch, "command-41.log"), "utf8")).toBe("from before");
  });
});

describe("Terminal.run: commands that wait or never end", () => {
  it("stops a command waiting at a prompt, quickly, and kills it", async () => {
    const result = await run("printf 'Your name? '; sleep 1000");
    expect(result.outcome).toEqual({ type: "prompt", line: "Your name? " });
    expect(result.output).toBe("Your name? ");
    expect(result.elapsedMs).toBeLessThan(2_000);
    expect(isRunning(result.pid)).toBe(false);
    expect(terminal.list()).toEqual([]);
  });

  it("stops a node program that prompts and waits", async () => {
    const result = await run(node("process.stdout.write('Proceed with installation? [Y/n] '); setTimeout(() => {}, 100000)"));
    expect(result.outcome).toEqual({ type: "prompt", line: "Proceed with installation? [Y/n] " });
    expect(isRunning(result.pid)).toBe(false);
  });

  it("moves a quiet server to the background, keeps its later output, and dispose kills it with its children", async () => {
    const script = "sh -c 'sleep 1000 & echo child $!; wait' & echo listening; sleep 0.6; echo request served; wait";
    const result = await run(script);
    expect(result.outcome).toEqual({ type: "background", reason: "quiet" });
    expect(result.output).toMatch(/^(child \d+\nlistening\n|listening\nchild \d+\n)$/);
    const grandchild = Number(/child (\d+)/.exec(result.output)?.[1]);
    expect(isRunning(grandchild)).toBe(true);

    expect(terminal.list()).toMatchObject([{ id: result.id, pid: result.pid, command: script, status: "running", exitCode: null }]);
    await delay(500);
    expect(terminal.newOutput(result.id)).toBe("request served\n");
    expect(terminal.newOutput(result.id)).toBe("");

    await terminal.dispose();
    expect(isRunning(result.pid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
    expect(terminal.list()).toMatchObject([{ id: result.id, status: "exited" }]);
  });

  it("moves a command that prints nothing to the background", async () => {
    const result = await run("sleep 1000");
    expect(result.outcome).toEqual({ type: "background", reason: "silent" });
    expect(result.elapsedMs).toBeGreaterThanOrEqual(timing.silentMs - 50);
    expect(terminal.list()).toMatchObject([{ id: result.id, status: "running" }]);
    expect(await terminal.kill(result.id)).toBe(true);
    expect(isRunning(result.pid)).toBe(false);
    expect(terminal.list()).toMatchObject([{ id: result.id, status: "exited", exitSignal: "SIGTERM" }]);
    expect(await terminal.kill(999)).toBe(false);
  });

  it("returns a command that never stops printing at the timeout, still running", async () => {
    const result = await run(node("setInterval(() => console.log('tick'), 50)"), { timeoutMs: 700 });
    expect(result.outcome).toEqual({ type: "background", reason: "timeout" });
    expect(result.output).toMatch(/^(tick\n){5,}$/);
    await delay(300);
    expect(terminal.newOutput(result.id)).toMatch(/^(tick\n){2,}$/);
  });

  it("with a timeout, waits through quiet periods for the command to finish", async () => {
    const command = "echo start; sleep 1; echo done";
    const hurried = await run(command);
    expect(hurried.outcome).toEqual({ type: "background", reason: "quiet" });
    const patient = await run(command, { timeoutMs: 5_000 });
    expect(patient.outcome).toMatchObject({ type: "exited", code: 0 });
    expect(patient.output).toBe("start\ndone\n");
  });

  it("keeps processes a command left running (holding its output) in the background", async () => {
    const result = await run("sleep 1000 & echo started");
    expect(result.outcome).toEqual({ type: "exited", code: 0, signal: null, lingering: true });
    expect(terminal.list()).toMatchObject([{ id: result.id, status: "running", exitCode: 0 }]);
    await terminal.dispose();
    expect(terminal.list()).toMatchObject([{ id: result.id, status: "exited" }]);
  });

  it("keeps track of a daemon that detached its output, and dispose stops it", async () => {
    const result = await run("nohup sleep 1000 > /dev/null 2>&1 & echo $!");
    const daemon = Number(result.output.trim());
    expect(result.outcome).toEqual({ type: "exited", code: 0, signal: null, lingering: true });
    expect(isRunning(daemon)).toBe(true);
    await terminal.dispose();
    expect(isRunning(daemon)).toBe(false);
  });

  it("tells about background processes once they end, and only once", async () => {
    const result = await run("echo serving; sleep 0.8; echo bye");
    expect(result.outcome.type).toBe("background");
    expect(terminal.updates()).toBe(`Process #${result.id} \`echo serving; sleep 0.8; echo bye\`: still running (pid ${result.pid}).\n(no new output)`);
    await delay(700);
    expect(terminal.updates()).toBe(`Process #${result.id} \`echo serving; sleep 0.8; echo bye\`: exited with code 0.\nNew output:\nbye\n`);
    expect(terminal.updates()).toBe("");
  });
});

describe("Terminal.run: abort", () => {
  it("kills the whole tree at once and returns what it had", async () => {
    const controller = new AbortController();
    const started = performance.now();
    const result = await run("sh -c 'sleep 1000 & echo child $!; wait'; echo never", {
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    expect(result.outcome).toEqual({ type: "aborted" });
    expect(result.output).toMatch(/^child \d+\n$/);
    const grandchild = Number(/child (\d+)/.exec(result.output)?.[1]);
    expect(isRunning(grandchild)).toBe(false);
    expect(isRunning(result.pid)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(terminal.list()).toEqual([]);
  });
});

describe("terminalFor", () => {
  it("gives one terminal per scratch folder, and a fresh one after dispose", async () => {
    const a = terminalFor({ scratchDir: path.join(base, "a") });
    expect(terminalFor({ scratchDir: path.join(base, "a") })).toBe(a);
    expect(terminalFor({ scratchDir: path.join(base, "b") })).not.toBe(a);
    await a.dispose();
    expect(terminalFor({ scratchDir: path.join(base, "a") })).not.toBe(a);
    useTerminal(terminal);
    expect(terminalFor({ scratchDir: scratch })).toBe(terminal);
  });

  it("refuses to run after dispose", async () => {
    await terminal.dispose();
    expect(await terminal.run({ command: "echo hi", cwd: ws })).toEqual({
      started: false,
      message: "The task's terminal has been closed; no more commands can run in this task.",
    });
  });
});
