import type { Io } from "@cairn/host/io";
import type { RunArgs } from "@cairn/host/run-args";
import { continueCommand } from "./continue.js";
import { runNewTask } from "./run-task.js";

/**
 * `cairn run`: a new task (run-task.ts), or with -c the last task of this workspace carried on
 * (continue.ts, as `cairn resume` would).
 */
export async function runCommand(args: RunArgs, io: Io): Promise<number> {
  if (args.continue) return continueCommand(args, io);
  return runNewTask(args, io);
}
