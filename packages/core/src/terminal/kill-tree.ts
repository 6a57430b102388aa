import { readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { procStat } from "../proc/index.js";

/**
 * Every command runs in its own process group (spawned detached, so the shell is the group's
 * leader and its id is the group's id). Signalling the group reaches the shell, its children and
 * their children, even after the shell itself has exited.
 */

/** Sends `signal` to every process of the group; false if none was left to signal. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === "ESRCH" || errorCode(error) === "EPERM") return false;
    throw error;
  }
}

/**
 * Whether any process of the group is still running. A zombie does not count: it has exited and
 * only waits to be reaped, which in a container whose init does not reap may be never.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== "linux") return true;
  const leader = procStat(pgid);
  if (leader !== undefined && leader.pgrp === pgid && !isDead(leader.state)) return true;
  return liveMembers(pgid);
}

/** Whether one process is running (not gone, not a zombie). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== "linux") return true;
  const state = procStat(pid);
  return state !== undefined && !isDead(state.state);
}

/**
 * Stops the whole group: SIGTERM, then SIGKILL to whatever is left after `graceMs`. Resolves once
 * nothing of the group runs (or, for a process that survives SIGKILL, after a last wait).
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, "SIGTERM");
  // A stopped process handles SIGTERM only once continued.
  signalGroup(pgid, "SIGCONT");
  if (await waitForGroupExit(pgid, graceMs)) return;
  signalGroup(pgid, "SIGKILL");
  await waitForGroupExit(pgid, 2_000);
}

/** Kills the group at once, synchronously (for process exit, where nothing can be awaited). */
export function killGroupNow(pgid: number): void {
  signalGroup(pgid, "SIGKILL");
}

async function waitForGroupExit(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  let pause = 5;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (performance.now() >= deadline) return false;
    await sleep(pause);
    pause = Math.min(pause * 2, 50);
  }
}

function liveMembers(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true; // cannot look: trust kill(0)
  }
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const proc = procStat(Number(entry));
    if (proc !== undefined && proc.pgrp === pgid && !isDead(proc.state)) return true;
  }
  return false;
}

function isDead(state: string): boolean {
  return state === "Z" || state === "X" || state === "x";
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
