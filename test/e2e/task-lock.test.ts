import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cairnBin, cleanEnv, runCairn, startCairn } from "../support/cairn-cli.js";

/**
 * One writer per task, and liveness that a zombie or a reused pid does not fool: through the real
 * `cairn` processes, with the task's lock file as it is on disk.
 */
const fx = useE2eFixture();
const spawned: ChildProcess[] = [];
afterEach(async () => {
  for (const child of spawned.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // A parent that keeps a zombie is asked to reap it (so none outlives the test); the rest are killed.
    if (child.stdin) child.stdin.end();
    else child.kill("SIGKILL");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});

/**
 * Starts `command` under a parent that never calls wait() while the test runs, as a container's
 * PID 1 without --init: killed, the child stays a zombie. Closing the parent's stdin makes it
 * reap the child and exit. Resolves with the child's pid.
 */
async function underNonReapingParent(command: string[]): Promise<number> {
  const script = [
    "import subprocess, sys",
    "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)",
    "print(p.pid, flush=True)",
    "sys.stdin.read()",
    "p.kill() if p.poll() is None else None",
    "p.wait()",
  ].join("\n");
  const parent = spawn("python3", ["-c", script, ...command], { env: env(), stdio: ["pipe", "pipe", "ignore"] });
  spawned.push(parent);
  return Number(await new Promise<string>((resolve) => parent.stdout!.setEncoding("utf8").once("data", resolve)));
}

const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = (result: string) => call("attempt_completion", { result });
const hold: ScriptedTurn = { delayMs: 120_000 };
const args = () => ["--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "edit"];
const taskId = () => readdirSync(path.join(fx.home.dir, "tasks")).find((n) => n !== "index.json")!;
const lockFile = () => path.join(fx.home.dir, "tasks", taskId(), "writer.lock");
const stateOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");

async function until(test: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A task that ran to the end: a stored task any later `cairn resume` may carry on. */
async function finishedTask(): Promise<string> {
  const run = await runCairn(["run", ...args(), "--cwd", fx.workspace.dir, "write a"], { env: env() });
  expect(run.code, run.stderr).toBe(0);
  return taskId();
}

describe("one writer per task", () => {
  it("two `cairn resume` of one task started together: exactly one runs, the other says in one line which process has it", async () => {
    fx.server = await startScriptedModelServer({ turns: [done("first")], responder: () => hold });
    const id = await finishedTask();
    const a = startCairn(["resume", id, ...args(), "go on"], { env: env() });
    const b = startCairn(["resume", id, ...args(), "go on"], { env: env() });
    spawned.push(a.child, b.child);
    // The one that runs waits on the model for good; the other must give up on its own.
    const first = await Promise.race([a.exited.then(() => a), b.exited.then(() => b)]);
    const winner = first === a ? b : a;
    expect(first.child.exitCode).toBe(2);
    const said = first.output().stderr.trim();
    expect(said.split("\n")).toHaveLength(1);
    expect(said).toMatch(new RegExp(`^cairn: Task ${id} is in use by process ${winner.child.pid}; wait for it to finish or stop it\\. If no Cairn runs as process ${winner.child.pid} \\(check with ps -p ${winner.child.pid}\\), delete \\S+writer\\.lock and try again\\.$`));
    await until(() => fx.server.requests.length >= 2, "the running resume's model request");
    // The loser never reached the model nor the journal: one request of the run, one of the resume.
    expect(fx.server.requests).toHaveLength(2);
    expect(winner.child.exitCode).toBe(null);
    expect(JSON.parse(readFileSync(lockFile(), "utf8"))).toMatchObject({ pid: winner.child.pid });
    // Nor can the task be deleted from under it.
    const deleted = await runCairn(["delete", id], { env: env() });
    expect(deleted.code).toBe(2);
    expect(deleted.stderr).toContain(`is in use by process ${winner.child.pid}; `);
    expect(existsSync(path.join(fx.home.dir, "tasks", id, "metadata.json"))).toBe(true);
  }, 60_000);

  it("a `cairn run` killed with SIGKILL that stays a zombie (its parent never reaps it) does not hold the task: `cairn resume` carries it on", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "a.txt", content: "A" }), hold, done("resumed")] });
    const pid = await underNonReapingParent([process.execPath, cairnBin, "run", ...args(), "--cwd", fx.workspace.dir, "write a"]);
    await until(() => fx.server.requests.length >= 2, "the run's second model request");

    // Positive control: while that cairn is alive, the task is in use.
    const refused = await runCairn(["resume", taskId(), ...args()], { env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^cairn: Task \\S+ is in use by process ${pid}; `));

    process.kill(pid, "SIGKILL");
    await until(() => stateOf(pid)[0] === "Z", "the killed cairn to be a zombie");
    expect(JSON.parse(readFileSync(lockFile(), "utf8"))).toMatchObject({ pid });

    const history = JSON.parse((await runCairn(["history", "--all", "--json"], { env: env() })).stdout) as Array<{ status: string }>;
    expect(history[0]!.status).toBe("interrupted");
    const resumed = await runCairn(["resume", taskId(), ...args()], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "a.txt"), "utf8")).toBe("A");
    expect(fx.server.requests).toHaveLength(3);
    // Still a zombie: the task was taken from it, not from a process that went away meanwhile.
    expect(stateOf(pid)[0]).toBe("Z");
    // The resume ended and gave the task up.
    expect(existsSync(lockFile())).toBe(false);
  }, 60_000);

  it("a lock naming a live pid that now belongs to another program (another start time) does not hold the task", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "a.txt", content: "A" }), hold, done("resumed")] });
    const cairn = startCairn(["run", ...args(), "--cwd", fx.workspace.dir, "--json", "write a"], { env: env() });
    spawned.push(cairn.child);
    await until(() => fx.server.requests.length >= 2, "the run's second model request");
    cairn.child.kill("SIGKILL");
    await cairn.exited;

    // What a reused pid looks like: the lock and the metadata name a process that runs, but started at another time.
    const other = spawn("sleep", ["600"], { stdio: "ignore" });
    spawned.push(other);
    await until(() => existsSync(`/proc/${other.pid}/stat`), "the other program");
    const start = stateOf(other.pid!)[19]!;
    const lock = JSON.parse(readFileSync(lockFile(), "utf8")) as Record<string, unknown>;
    writeFileSync(lockFile(), JSON.stringify({ ...lock, pid: other.pid, start: String(Number(start) - 100), host: os.hostname() }));
    const metadataFile = path.join(fx.home.dir, "tasks", taskId(), "metadata.json");
    const meta = JSON.parse(readFileSync(metadataFile, "utf8")) as Record<string, unknown>;
    writeFileSync(metadataFile, JSON.stringify({ ...meta, pid: other.pid, processStart: String(Number(start) - 100) }));

    // Positive control: the same lock with the program's real start time holds the task.
    writeFileSync(lockFile(), JSON.stringify({ ...lock, pid: other.pid, start, host: os.hostname() }));
    const refused = await runCairn(["resume", taskId(), ...args()], { env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`is in use by process ${other.pid}; `);

    writeFileSync(lockFile(), JSON.stringify({ ...lock, pid: other.pid, start: String(Number(start) - 100), host: os.hostname() }));
    const resumed = await runCairn(["resume", taskId(), ...args()], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(fx.server.requests).toHaveLength(3);
    expect(other.exitCode).toBe(null);
  }, 60_000);
});
