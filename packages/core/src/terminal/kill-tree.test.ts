import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { groupAlive, processAlive, terminateGroup } from "./kill-tree.js";

/** Independent of the code under test: gone, or a zombie waiting to be reaped. */
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

/** A detached shell that starts a grandchild and prints its pid. */
async function groupWithGrandchild(script = "sleep 1000 & echo $!; wait"): Promise<{ pgid: number; grandchild: number }> {
  const child = spawn("/bin/sh", ["-c", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  const line = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(d.toString())));
  return { pgid: child.pid ?? 0, grandchild: Number(line.trim()) };
}

describe("terminateGroup", () => {
  it("kills the shell and its grandchildren", async () => {
    const { pgid, grandchild } = await groupWithGrandchild();
    expect(isRunning(grandchild)).toBe(true);
    expect(groupAlive(pgid)).toBe(true);
    await terminateGroup(pgid, 1_000);
    expect(isRunning(pgid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
    expect(groupAlive(pgid)).toBe(false);
  });

  it("kills what is left of a group whose leader already exited", async () => {
    const { pgid, grandchild } = await groupWithGrandchild("sleep 1000 & echo $!");
    await new Promise((r) => setTimeout(r, 100));
    expect(isRunning(pgid)).toBe(false);
    expect(groupAlive(pgid)).toBe(true);
    await terminateGroup(pgid, 1_000);
    expect(isRunning(grandchild)).toBe(false);
  });

  it("uses SIGKILL on a process that ignores SIGTERM, after the grace period", async () => {
    const { pgid, grandchild } = await groupWithGrandchild("trap '' TERM; sleep 1000 & echo $!; while :; do wait; done");
    const started = performance.now();
    await terminateGroup(pgid, 300);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(isRunning(pgid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
  });

  it("counts a group whose processes have all exited as gone, even if nobody reaped them", async () => {
    // The orphaned sleep is reparented to init; in a container whose init does not reap, it stays a zombie.
    const { pgid, grandchild } = await groupWithGrandchild("(sleep 0.1 & echo $!)");
    await new Promise((r) => setTimeout(r, 300));
    expect(isRunning(grandchild)).toBe(false);
    expect(groupAlive(pgid)).toBe(false);
    expect(processAlive(grandchild)).toBe(false);
  });

  it("does nothing for a group that is gone", async () => {
    const { pgid } = await groupWithGrandchild("echo 1");
    await new Promise((r) => setTimeout(r, 100));
    await terminateGroup(pgid, 1_000);
    expect(groupAlive(pgid)).toBe(false);
    expect(processAlive(pgid)).toBe(false);
  });
});
