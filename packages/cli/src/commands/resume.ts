import { closeTask, reopenTask, resumeMessage } from "../open-task.js";
import { driveHeadless, type Io } from "../headless.js";
import type { RunArgs } from "../run-args.js";
import { UsageError } from "../usage-error.js";
import { runCommand } from "./run.js";

/**
 * `cairn resume <id> [message]`: carries a stored task on. An interrupted call is reported to the
 * model as interrupted, a pending question is answered by the message, and a plan awaiting
 * approval goes ahead with --mode act. A slash command (/compact, /newtask, a workflow) goes to
 * the task as it is.
 */
export async function resumeCommand(args: RunArgs, io: Io): Promise<number> {
  const [id, ...words] = args.task.split(" ");
  if (!id) throw new UsageError('Which task? cairn resume <id> ["message"] (see cairn history).');
  const message = words.join(" ").trim() || undefined;
  const opened = await reopenTask(args, id, io, {});
  const resumed = opened.resumed!;
  const mode = args.mode ?? resumed.meta.mode;
  opened.store.claim();
  const text = message?.startsWith("/") ? message : resumeMessage(resumed, mode, message);
  let result;
  try {
    result = await driveHeadless(opened.task, opened.task.continue(text), args.json, io);
  } finally {
    await closeTask(opened);
  }
  // /newtask: the essentials go to a fresh task in the same workspace, which runs now.
  if (result.result.new_task) return runCommand({ ...args, cwd: resumed.meta.workspace, mode, task: result.result.new_task }, io);
  return result.code;
}
