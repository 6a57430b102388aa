import { resumeMessage, resumeSession } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { attachedImages } from "../attached-images.js";
import { driveHeadless } from "../headless.js";
import { printNotices, runNewTask } from "./run-task.js";

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
  const session = await resumeSession({ id, env: io.env, overrides: overridesOf(args) });
  let images;
  try {
    images = attachedImages(args, () => session.settings.model);
  } catch (error) {
    await session.close();
    throw error;
  }
  printNotices(session, io);
  const resumed = session.resumed!;
  const mode = session.settings.mode;
  session.store.claim();
  let result;
  try {
    result = await driveHeadless(session.task, session.task.continue(resumeMessage(resumed, mode, message), images), args.json, io, session.notices);
  } finally {
    await session.close();
  }
  // /newtask: the essentials go to a fresh task in the same workspace, which runs now.
  if (result.result.new_task) return runNewTask({ ...args, cwd: resumed.meta.workspace, mode, task: result.result.new_task }, io, session.store);
  return result.code;
}
