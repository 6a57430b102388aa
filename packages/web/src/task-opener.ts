import { SessionError, SessionRunner, type Host, type Mode, type SessionOverrides } from "@cairn/core";
import type { SessionRecordings } from "@cairn/host/record";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";

/** A failure the person must act on (bad options, unknown or busy task): shown as it is. */
export class OpenError extends Error {}

async function mapped<T>(open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof SessionError) throw new OpenError(error.message);
    throw error;
  }
}

// Notices (untrusted config, checkpoints off, sandbox) reach the page as the first run's system notice events.
/** A new task, stored now so the page can show it at once; `model`: the provider and model the person picked in the page, over the configured ones. */
export function openNewTask(args: RunArgs, text: string, host: Host, mode: Mode, env: NodeJS.ProcessEnv, model: SessionOverrides = {}, recordings?: SessionRecordings): Promise<SessionRunner> {
  const title = text.split("\n")[0]!.slice(0, 200);
  return mapped(() => recorded(recordings, (fetch) => SessionRunner.create({ cwd: args.cwd, env, overrides: { ...overridesOf(args), ...model, mode }, host, title, ...fetch })));
}

/** A stored task, to carry on: the runner words its next message for how it was left. */
export function openStoredTask(args: RunArgs, id: string, host: Host, env: NodeJS.ProcessEnv, recordings?: SessionRecordings): Promise<SessionRunner> {
  return mapped(() => recorded(recordings, (fetch) => SessionRunner.resume({ id, env, overrides: overridesOf(args), host, ...fetch })));
}

/** The runner `open` makes, recorded when cairn web was started with --record. */
function recorded(recordings: SessionRecordings | undefined, open: (fetch: { modelFetch?: typeof globalThis.fetch }) => Promise<SessionRunner>): Promise<SessionRunner> {
  return recordings ? recordings.record(open) : open({});
}
