import { readFileSync } from "node:fs";
import os from "node:os";
import { procStat, type ProcStat } from "../proc/index.js";

/**
 * A process as a lock or a task's metadata names it: its pid, when it started (so a pid the system
 * gave to another program since is told apart) and the machine it runs on (a pid means nothing on
 * another one).
 */
export type ProcessIdentity = { pid: number; start: string; host: string };

/** This process. */
export const thisProcess: ProcessIdentity = { pid: process.pid, start: processStart(process.pid) ?? "", host: os.hostname() };

/**
 * Whether the process `who` names is still running. On Linux, from /proc/<pid>/stat: gone, a
 * zombie (exited, waiting to be reaped, which in a container whose init never reaps may be
 * forever) or a pid now used by a process that started at another time is not running. Without
 * /proc (macOS) only kill(pid, 0) can be asked, which a zombie or a reused pid passes: there a
 * lock may outlive its process until the pid is gone, and the message says how to remove it.
 * A process on another host cannot be looked at: it counts as running.
 */
export function processRunning(who: ProcessIdentity): boolean {
  if (who.host !== thisProcess.host) return true;
  if (!Number.isInteger(who.pid) || who.pid <= 0) return false;
  if (who.pid === process.pid) return who.start === "" || who.start === thisProcess.start;
  const stat = procStatOrNone(who.pid);
  if (stat === "no-proc") return signalable(who.pid);
  if (stat === undefined) return false;
  if (stat.state === "Z" || stat.state === "X" || stat.state === "x") return false;
  return who.start === "" || stat.start === who.start;
}

/** The start time of a process in clock ticks since boot (/proc/<pid>/stat field 22); undefined without /proc. */
export function processStart(pid: number): string | undefined {
  return procStat(pid)?.start;
}

function procStatOrNone(pid: number): ProcStat | undefined | "no-proc" {
  const stat = procStat(pid);
  if (stat !== undefined) return stat;
  return hasProc() ? undefined : "no-proc";
}

let procMounted: boolean | undefined;

function hasProc(): boolean {
  if (procMounted === undefined) {
    try {
      readFileSync("/proc/self/stat");
      procMounted = true;
    } catch {
      procMounted = false;
    }
  }
  return procMounted;
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
