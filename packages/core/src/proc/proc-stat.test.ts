import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { procStat } from "./proc-stat.js";

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

function sleeper(file: string, args: string[]): number {
  const child = spawn(file, args, { stdio: "ignore" });
  started.push(child.pid!);
  return child.pid!;
}

async function until<T>(read: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never saw ${what}`);
}

describe.runIf(process.platform === "linux")("procStat", () => {
  it("reads this process: running, its parent, its group and a start time", () => {
    const stat = procStat(process.pid)!;
    expect(stat.state).toMatch(/^[RS]$/);
    expect(stat.ppid).toBe(process.ppid);
    const group = spawnSync("ps", ["-o", "pgid=", "-p", String(process.pid)], { encoding: "utf8" }).stdout.trim();
    expect(stat.pgrp).toBe(Number(group));
    expect(stat.start).toMatch(/^[1-9]\d*$/);
  });

  it("counts fields from the last parenthesis, so a program named with ') ' reads right", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-proc-"));
    try {
      const odd = path.join(dir, "a) S 1 2 (b");
      copyFileSync("/bin/sleep", odd);
      spawnSync("chmod", ["+x", odd]);
      const pid = sleeper(odd, ["30"]);
      const stat = await until(() => {
        const read = procStat(pid);
        return read?.state === "S" ? read : undefined;
      }, "the oddly named sleep asleep");
      expect(readFileSync(`/proc/${pid}/stat`, "utf8")).toContain("(a) S 1 2 (b)");
      expect(stat.ppid).toBe(process.pid);
      expect(stat.start).toMatch(/^\d+$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("tells a zombie (exited, not yet reaped by its parent), and says nothing of a process that is gone", async () => {
    // The parent forks a child that exits at once, and reaps it only when told to: a zombie meanwhile.
    const parent = spawn("python3", ["-c", "import os,sys\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid,flush=True)\nsys.stdin.readline()\nos.waitpid(pid,0)"], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    started.push(parent.pid!);
    const zombie = Number(await new Promise<string>((resolve) => parent.stdout!.once("data", (data: Buffer) => resolve(data.toString()))));
    await until(() => (procStat(zombie)?.state === "Z" ? true : undefined), "the child a zombie");
    expect(procStat(zombie)?.ppid).toBe(parent.pid);

    const exited = new Promise((resolve) => parent.once("exit", resolve));
    parent.stdin!.end("reap\n");
    await exited;
    expect(procStat(zombie)).toBeUndefined();
    expect(procStat(parent.pid!)).toBeUndefined();
  });
});
