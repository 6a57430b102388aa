import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processRunning, processStart, thisProcess } from "./process-identity.js";
import { TaskInUseError } from "./task-lock.js";
import { TaskStore } from "./task-store.js";

let home: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "cairn-lock-"));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // The zombie's parent reaps it when its stdin closes (none outlives the test); the others are killed.
    if (child.stdin) child.stdin.end();
    else child.kill("SIGKILL");
    await exited;
  }
  rmSync(home, { recursive: true, force: true });
});

const init = { workspace: "/w", provider: "anthropic", model: "m", protocol: "native" as const, mode: "act" as const };
const lockOf = (store: TaskStore) => path.join(store.dir, "writer.lock");

/** A task left by another process: its lock (or, for an older Cairn, its metadata alone) names `owner`. */
function leftBy(owner: { pid: number; start: string }, withLock = true): TaskStore {
  const store = TaskStore.create(home, { ...init, task: "t" });
  store.release();
  store.update({ pid: owner.pid, processStart: owner.start, status: "running" });
  if (withLock) writeFileSync(lockOf(store), JSON.stringify({ ...owner, host: os.hostname(), nonce: "other" }));
  return TaskStore.open(home, store.id);
}

function started(command: string): Promise<{ child: ChildProcess; firstLine: string }> {
  return startedProcess(spawn("sh", ["-c", command], { stdio: ["ignore", "pipe", "ignore"] }));
}

/** A `sleep 0` under a parent that never calls wait() until its stdin closes: a zombie once it exits. */
function zombieUnderParent(): Promise<{ child: ChildProcess; firstLine: string }> {
  const script = "import subprocess, sys\np = subprocess.Popen(['sleep', '0'])\nprint(p.pid, flush=True)\nsys.stdin.read()\np.wait()";
  return startedProcess(spawn("python3", ["-c", script], { stdio: ["pipe", "pipe", "ignore"] }));
}

function startedProcess(child: ChildProcess): Promise<{ child: ChildProcess; firstLine: string }> {
  children.push(child);
  return new Promise((resolve) => child.stdout!.setEncoding("utf8").once("data", (d: string) => resolve({ child, firstLine: d.trim() })));
}

async function until(test: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !test(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(test()).toBe(true);
}

const stateOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.charAt(0);

describe("one writer per task", () => {
  it("a task held by a live process is in use: locking it fails with one line naming the process and the lock file", async () => {
    const { child } = await started("echo up; exec sleep 60");
    const pid = child.pid!;
    const store = leftBy({ pid, start: processStart(pid)! });
    expect(store.interrupted).toBe(false);
    expect(store.heldBy()?.pid).toBe(pid);
    let error: unknown;
    try {
      store.lock();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TaskInUseError);
    expect((error as Error).message).toMatch(new RegExp(`^Task \\S+ is in use by process ${pid}; wait for it to finish or stop it\\. If no Cairn runs as process ${pid} \\(check with ps -p ${pid}\\), delete \\S+writer\\.lock and try again\\.$`));
    expect(JSON.parse(readFileSync(lockOf(store), "utf8"))).toMatchObject({ pid });
  });

  it("a lock naming a zombie (exited, never reaped) is stale: the task reads as interrupted and is taken over", async () => {
    const { firstLine } = await zombieUnderParent();
    const zombie = Number(firstLine);
    await until(() => existsSync(`/proc/${zombie}/stat`) && stateOf(zombie) === "Z");
    const start = readFileSync(`/proc/${zombie}/stat`, "utf8").split(") ")[1]!.split(" ")[19]!;
    expect(processRunning({ pid: zombie, start, host: os.hostname() })).toBe(false);
    const store = leftBy({ pid: zombie, start });
    expect(store.interrupted).toBe(true);
    store.lock();
    expect(JSON.parse(readFileSync(lockOf(store), "utf8"))).toMatchObject({ pid: process.pid, start: thisProcess.start });
  });

  it("a lock naming a live pid that another program now has (another start time) is stale", async () => {
    const { child } = await started("echo up; exec sleep 60");
    const pid = child.pid!;
    const store = leftBy({ pid, start: String(Number(processStart(pid)) - 1) });
    expect(store.interrupted).toBe(true);
    store.lock();
    expect(JSON.parse(readFileSync(lockOf(store), "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("a task of an older Cairn (no lock file) is judged by the process its metadata names, zombies and reused pids excluded", async () => {
    const { child } = await started("echo up; exec sleep 60");
    const live = child.pid!;
    expect(leftBy({ pid: live, start: processStart(live)! }, false).interrupted).toBe(false);
    expect(() => leftBy({ pid: live, start: processStart(live)! }, false).lock()).toThrow(TaskInUseError);
    expect(leftBy({ pid: live, start: "1" }, false).interrupted).toBe(true);
    expect(leftBy({ pid: 2 ** 22 + 12345, start: "" }, false).interrupted).toBe(true);
  });

  it("a damaged lock file is stale; release removes only this process's own lock", () => {
    const store = leftBy({ pid: 2 ** 22 + 12345, start: "1" });
    writeFileSync(lockOf(store), "{half");
    store.lock();
    store.release();
    expect(existsSync(lockOf(store))).toBe(false);
    store.lock();
    writeFileSync(lockOf(store), JSON.stringify({ pid: 7, start: "9", host: "elsewhere", nonce: "n" }));
    store.release();
    // Not ours any more (taken over by someone who judged ours stale): left in place, and it counts as live.
    expect(existsSync(lockOf(store))).toBe(true);
    expect(() => TaskStore.open(home, store.id).lock()).toThrow(/in use by process 7 on elsewhere;/);
  });

  it("this process may open a task again while it holds it, but not while it runs it", () => {
    const first = TaskStore.create(home, { ...init, task: "t" });
    first.update({ status: "completed" });
    const again = TaskStore.open(home, first.id);
    again.lock();
    first.release();
    expect(existsSync(lockOf(first))).toBe(true);
    again.release();
    expect(existsSync(lockOf(first))).toBe(false);
    const running = TaskStore.create(home, { ...init, task: "u" });
    expect(() => TaskStore.open(home, running.id).lock()).toThrow(new RegExp(`in use by process ${process.pid};`));
  });
});
