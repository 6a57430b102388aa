import { closeTask, startTask } from "../open-task.js";
import { driveHeadless, type Io } from "../headless.js";
import type { RunArgs } from "../run-args.js";

/**
 * `cairn run`: one task, no person. Calls that need approval and are not auto-approved are
 * denied (the model is told); a question ends the run with exit code 3. The task is stored as it
 * runs, so `cairn resume` can carry it on.
 */
export async function runCommand(args: RunArgs, io: Io): Promise<number> {
  const opened = await startTask(args, args.task, io, {}, args.mode ?? "act");
  try {
    return (await driveHeadless(opened.task, opened.task.run(args.task), args.json, io)).code;
  } finally {
    await closeTask(opened);
  }
}
