import { readFileSync } from "node:fs";

/** What /proc/<pid>/stat says of a process (proc(5)). */
export type ProcStat = {
  /** The state letter: R, S, D, Z (a zombie), T, … */
  state: string;
  ppid: number;
  /** The process group. */
  pgrp: number;
  /** The start time in clock ticks since boot (field 22): with the pid, it names one process. */
  start: string;
};

/** /proc/<pid>/stat read now; undefined when the process is gone, not ours to read, or there is no /proc. */
export function procStat(pid: number | string): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and ") ": count from its end.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", ppid: Number(fields[1]), pgrp: Number(fields[2]), start: fields[19] ?? "" };
}
