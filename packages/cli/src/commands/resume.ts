import { SessionRunner } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { UsageError } from "@cairn/host/usage-error";
import { attachedImages } from "../attached-images.js";
import { driveHeadless } from "../headless.js";
import { recordMessage, recorderFor } from "@cairn/host/record";

/**
 * `cairn resume <id> [message]`: carries a stored task on. An interrupted call is reported to the
 * model as interrupted, a pending question is answered by the message, and a plan awaiting
 * approval goes ahead with --mode act. A slash command (/compact, /newtask, a workflow) goes to
 * the task as it is.
 */
export async function resumeCommand(args: RunArgs, io: Io): Promise<number> {
  const [id, ...words] = args.task.split(" ");
  if (!id) throw new UsageError('Which task? cairn resume <id> ["message"] (see cairn history).');
  const recorder = recorderFor(args, true, io.env);
  const runner = await SessionRunner.resume({ id, env: io.env, overrides: overridesOf(args), ...(recorder ? { modelFetch: recorder.fetch() } : {}) });
  let images;
  try {
    images = attachedImages(args, () => runner.session!.settings.model);
  } catch (error) {
    await runner.close();
    throw error;
  }
  const message = words.join(" ").trim();
  if (recorder) recordMessage(recorder, runner, { text: message, images, ...(args.mode ? { mode: args.mode } : {}) });
  return driveHeadless(runner, message, images, args.json, io);
}
