import { openSession, resumeSession, type Host, type Mode, type Session } from "@cairn/core";
import type { Io } from "./headless.js";
import { overridesOf, type RunArgs } from "./run-args.js";

export { resumeMessage, type ResumedState } from "@cairn/core";

/**
 * The CLI's former way of opening tasks, kept as a thin layer over core's sessions for the hosts
 * that still import it (web/task-opener.ts, acp/open-acp-task.ts) until they call openSession /
 * resumeSession themselves. Delete with its last importer.
 */
export type OpenedTask = Session & { config: { cwd: string; home: string; model: Session["settings"]["model"] } };

function opened(session: Session, io: Io): OpenedTask {
  for (const notice of session.notices) io.stderr(`cairn: ${notice}\n`);
  return { ...session, config: { cwd: session.settings.cwd, home: session.settings.home, model: session.settings.model } };
}

export async function startTask(args: RunArgs, title: string, io: Io, host: Host, mode: Mode): Promise<OpenedTask> {
  return opened(await openSession({ cwd: args.cwd, env: io.env, overrides: { ...overridesOf(args), mode }, host, title }), io);
}

export async function reopenTask(args: RunArgs, id: string, io: Io, host: Host): Promise<OpenedTask> {
  return opened(await resumeSession({ id, env: io.env, overrides: overridesOf(args), host }), io);
}

export async function closeTask(task: Pick<Session, "close">): Promise<void> {
  await task.close();
}
