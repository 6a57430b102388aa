/*
 * proc/: what Linux's /proc says of a process. A leaf: the terminal (killing a command's group),
 * the language servers (reaping theirs) and storage (telling a live task's process from a reused
 * pid) all read it.
 */
export { procStat, type ProcStat } from "./proc-stat.js";
