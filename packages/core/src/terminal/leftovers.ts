import { readdirSync, readFileSync } from "node:fs";
import { procStat } from "../proc/index.js";
import { terminateGroup } from "./kill-tree.js";

/** The variable every command of a task carries, so its processes can be found after a crash. */
export const taskEnvName = "CAIRN_TASK_ID";

/**
 * Process groups still running commands of a task whose Cairn process died (kill -9, power loss
 * excepted): found by the task id in their environment (Linux /proc), then terminated.
 * Returns how many groups were stopped.
 */
export async function stopLeftoverCommands(taskId: string): Promise<number> {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return 0; // no /proc (macOS): nothing to find
  }
  const marker = `${taskEnvName}=${taskId}\0`;
  const groups = new Set<number>();
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      if (!`${environ}\0`.includes(marker)) continue;
      const stat = procStat(pid);
      if (stat === undefined || stat.state === "Z") continue;
      if (stat.pgrp > 1) groups.add(stat.pgrp);
    } catch {
      // gone, or not ours to read
    }
  }
  await Promise.all([...groups].map((group) => terminateGroup(group, 1_000)));
  return groups.size;
}
