import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Terminal, type RunResult } from "../terminal/index.js";
import { CommandSandbox } from "./command-sandbox.js";
import { findBubblewrap } from "./probe.js";

/** The terminal's commands on real bubblewrap: exit codes, background processes, and ending them. */
const timing = { quietMs: 400, silentMs: 600, promptQuietMs: 200, killGraceMs: 500, lingerMs: 150, emitIntervalMs: 20 };

let base: string;
let ws: string;
let terminal: Terminal;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-sandboxed-")));
  ws = path.join(base, "ws");
  await mkdir(ws);
  const bwrap = findBubblewrap(process.env.PATH);
  if (bwrap === undefined) throw new Error("these tests need bubblewrap (apt install bubblewrap)");
  const sandbox = new CommandSandbox({ bwrap, mode: "workspace-write", network: "on", workspace: ws, hiddenPaths: [], writablePaths: [] });
  terminal = new Terminal({ scratchDir: path.join(base, "scratch"), timing, sandbox });
});

afterEach(async () => {
  await terminal.dispose();
  await rm(base, { recursive: true, force: true });
});

async function run(command: string): Promise<Extract<RunResult, { started: true }>> {
  const result = await terminal.run({ command, cwd: ws });
  if (!result.started) throw new Error(`did not start: ${result.message}`);
  return result;
}

function withMarker(marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const marker = () => `${200 + Math.floor(Math.random() * 100)}.${process.pid}${Math.floor(Math.random() * 1000)}`;

describe("a sandboxed terminal", () => {
  it("reports the shell's exit code and output, and runs in its own PID namespace", async () => {
    const result = await run("echo out; echo err >&2; echo pid $$; exit 7");
    expect(result.outcome).toEqual({ type: "exited", code: 7, signal: null, lingering: false });
    expect(result.output).toMatch(/^out\nerr\npid \d\n$/); // a low pid: a fresh namespace
  });

  it("keeps a process the command left running (even setsid), until the group is killed", async () => {
    const seconds = marker();
    const result = await run(`setsid sleep ${seconds} & echo started`);
    expect(result.outcome).toMatchObject({ type: "exited", code: 0, lingering: true });
    expect(withMarker(`sleep\0${seconds}`)).toHaveLength(1);
    expect(terminal.list()[0]!.status).toBe("running");
    expect(await terminal.kill(result.id)).toBe(true);
    expect(withMarker(`sleep\0${seconds}`)).toEqual([]);
  });

  it("a process the command left running is shown running while it runs, and exited once it ends on its own", async () => {
    const seconds = `0.${marker().replace(".", "")}`;
    const result = await run(`setsid sleep ${seconds} </dev/null >/dev/null 2>&1 & echo started`);
    expect(result.outcome).toMatchObject({ type: "exited", code: 0, lingering: true });
    expect(terminal.list()[0]!.status).toBe("running");
    // The sandbox's shell stays while anything else runs in its namespace; bubblewrap ends after it.
    const deadline = Date.now() + 5_000;
    while (terminal.list()[0]!.status === "running" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(terminal.list()[0]!.status).toBe("exited");
    expect(withMarker(`sleep\0${seconds}`)).toEqual([]);
  });

  it("ends a background process when the model runs the kill its result suggested", async () => {
    const seconds = marker();
    const result = await run(`sleep ${seconds} & echo started`);
    expect(withMarker(`sleep\0${seconds}`)).toHaveLength(1);
    const killed = await run(`kill -TERM -- -${result.pid}`);
    expect(killed.outcome).toMatchObject({ type: "exited", code: 0 });
    expect(killed.output).toContain(`Stopped process #${result.id}`);
    expect(withMarker(`sleep\0${seconds}`)).toEqual([]);
    // A kill of anything else is an ordinary command in the sandbox, where the target cannot be seen.
    const other = await run("kill -TERM -- -1234567");
    expect(other.outcome).toMatchObject({ type: "exited" });
    expect((other.outcome as { code: number }).code).not.toBe(0);
  });

  it("dispose (the end of a task) ends everything, setsid and nohup escapes included", async () => {
    const seconds = marker();
    await run(`setsid sleep ${seconds} & nohup sleep ${seconds} >/dev/null 2>&1 & setsid sh -c 'sleep ${seconds}' & echo started`);
    expect(withMarker(`sleep\0${seconds}`).length).toBeGreaterThanOrEqual(3);
    await terminal.dispose();
    expect(withMarker(`sleep\0${seconds}`)).toEqual([]);
  });

  it("adds the sandbox note to a blocked write outside the workspace", async () => {
    const result = await run("echo x > /usr/cairn-blocked");
    expect(result.sandboxNote).toMatch(/sandbox blocked a write/);
    expect((await run("echo x > inside")).sandboxNote).toBeUndefined();
  });
});
