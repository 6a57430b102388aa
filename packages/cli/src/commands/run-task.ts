import { openSession, resolveSettings, type Session } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { attachedImages } from "../attached-images.js";
import { driveHeadless } from "../headless.js";

/**
 * A new task, no person: `cairn run "<task>"`, and the fresh task a resumed one hands over to
 * (/newtask). Calls that need approval and are not auto-approved are denied (the model is told); a
 * question ends the run with exit code 3. The task is stored as it runs, so `cairn resume` can
 * carry it on.
 */
export async function runNewTask(args: RunArgs, io: Io, handedOverFrom?: Session["store"]): Promise<number> {
  // Checked before the task is stored: nothing is left behind by a refused picture.
  const images = attachedImages(args, () => resolveSettings({ cwd: args.cwd, env: io.env, overrides: overridesOf(args) }).model);
  const parent = handedOverFrom ? { parent: { store: handedOverFrom, relation: "handoff" as const } } : {};
  let session = await openSession({ cwd: args.cwd, env: io.env, overrides: overridesOf(args), title: args.task, ...parent });
  printNotices(session, io);
  try {
    let outcome = await driveHeadless(session.task, session.task.run(args.task, images), args.json, io, session.notices);
    // new_task: the fresh task starts at once from the context alone, stored as the child of this one;
    // the chain's length is held by the tool (maxHandoffs), so this ends.
    for (let context = outcome.result.new_task; context; context = outcome.result.new_task) {
      const parent = session;
      session = await openSession({ cwd: args.cwd, env: io.env, overrides: overridesOf(args), title: context, parent: { store: parent.store, relation: "handoff" } });
      await parent.close();
      printNotices(session, io);
      outcome = await driveHeadless(session.task, session.task.run(context), args.json, io, session.notices);
    }
    return outcome.code;
  } finally {
    await session.close();
  }
}

/** What opening the task has to say, on stderr as before the run (with --json they are also events on stdout). */
export function printNotices(session: Session, io: Io): void {
  for (const notice of session.notices) io.stderr(`cairn: ${notice}\n`);
}
