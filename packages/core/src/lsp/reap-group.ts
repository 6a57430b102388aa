import { readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { procStat } from "../proc/index.js";

type Proc = { pid: number; ppid: number; pgrp: number; state: string };

function processes(): Proc[] {
  const found: Proc[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return found;
  }
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const stat = procStat(entry);
    if (stat !== undefined) found.push({ pid: Number(entry), state: stat.state, ppid: stat.ppid, pgrp: stat.pgrp });
  }
  return found;
}

/**
 * Ends the processes a server started (its group, the server itself excepted), children before
 * their parents, so each is reaped by its living parent. Killed all at once, a child outlives its
 * parent for a moment, is handed to PID 1 and, on a machine whose PID 1 does not reap (a
 * container), stays a zombie for good. Linux only (/proc); elsewhere it does nothing.
 */
export async function reapGroupBelow(leader: number, timeoutMs: number): Promise<void> {
  if (process.platform !== "linux") return;
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const members = processes().filter((p) => p.pgrp === leader && p.pid !== leader && p.state !== "Z" && p.state !== "X");
    if (members.length === 0) return;
    const parents = new Set(members.map((p) => p.ppid));
    const leaves = members.filter((p) => !parents.has(p.pid));
    for (const p of leaves) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    // Until their parents have reaped them (or the wait is over).
    const killed = new Set(leaves.map((p) => p.pid));
    for (let pause = 5; performance.now() < deadline; pause = Math.min(pause * 2, 50)) {
      if (!processes().some((p) => killed.has(p.pid) && p.ppid !== 1)) break;
      await sleep(pause);
    }
  }
}
