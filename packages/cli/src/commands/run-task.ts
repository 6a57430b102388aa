import { resolveSettingsDiscovering, SessionRunner } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { attachedImages } from "../attached-images.js";
import { driveHeadless } from "../headless.js";
import { recordMessage, recorderFor } from "@cairn/host/record";

/**
 * A new task, no person: `cairn run "<task>"`. Calls that need approval and are not auto-approved
 * are denied (the model is told); a question ends the run with exit code 3; a hand-off (new_task)
 * goes on in a fresh task at once. The task is stored as it runs, so `cairn resume` can carry it on.
 */
export async function runNewTask(args: RunArgs, io: Io): Promise<number> {
  // Checked before the task is stored: nothing is left behind by a refused picture. What the
  // model takes may come from its endpoint, which is asked first (a few seconds at most).
  const answering = args.images?.length ? (await resolveSettingsDiscovering({ cwd: args.cwd, env: io.env, overrides: overridesOf(args) })).model : undefined;
  const images = attachedImages(args, () => answering!);
  const recorder = recorderFor(args, false, io.env);
  const runner = SessionRunner.fresh({ cwd: args.cwd, env: io.env, overrides: overridesOf(args), ...(recorder ? { modelFetch: recorder.fetch() } : {}) });
  if (recorder) recordMessage(recorder, runner, { text: args.task, images });
  return driveHeadless(runner, args.task, images, args.json, io);
}
