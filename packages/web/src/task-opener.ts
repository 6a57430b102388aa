import {
  openSession,
  resumeMessage,
  resumeSession,
  SessionError,
  type AgentEvent,
  type Checkpoints,
  type Host,
  type ImagePart,
  type Mode,
  type Session,
  type SessionOverrides,
  type Task,
  type TaskResult,
  type TaskStore,
} from "@cairn/core";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { withPersonMessages } from "./stored-messages.js";
import type { WebEvent } from "./web-event.js";

/** A task opened for the web host through core's sessions, with what the page shows of it. */
export type WebSession = {
  id: string;
  task: Task;
  store: TaskStore;
  /** The workspace's checkpoints, when they work here. */
  checkpoints?: Checkpoints;
  title: string;
  cwd: string;
  model: { id: string; provider: string; contextWindow: number | null; supportsImages: boolean };
  mode: Mode;
  /** For a stored task: its recorded events and the person's messages, so the page shows where it stopped. */
  history: Array<AgentEvent | WebEvent>;
  /** The first run: the task itself, or (for a stored task) the message that carries it on; `images` go with it. */
  firstRun(message: string, images: readonly ImagePart[]): AsyncGenerator<AgentEvent, TaskResult>;
  close(): Promise<void>;
};

/** A failure the person must act on (bad options, unknown or busy task): shown as it is. */
export class OpenError extends Error {}

function webSession(session: Session, title: string, history: WebSession["history"], firstRun: WebSession["firstRun"]): WebSession {
  const { settings } = session;
  return {
    id: session.id,
    task: session.task,
    store: session.store,
    ...(session.checkpoints ? { checkpoints: session.checkpoints } : {}),
    title,
    cwd: settings.cwd,
    model: { id: settings.model.id, provider: settings.model.provider, contextWindow: settings.model.info?.contextWindow ?? null, supportsImages: settings.model.info?.supportsImages ?? false },
    mode: settings.mode,
    history,
    firstRun,
    close: () => session.close(),
  };
}

async function mapped<T>(open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof SessionError) throw new OpenError(error.message);
    throw error;
  }
}

// Notices (untrusted config, checkpoints off, sandbox) reach the page as the first run's system notice events.
/** `model`: the provider and model the person picked in the page, over the configured ones. */
export async function openNewTask(args: RunArgs, text: string, host: Host, mode: Mode, env: NodeJS.ProcessEnv, model: SessionOverrides = {}): Promise<WebSession> {
  const title = text.split("\n")[0]!.slice(0, 200);
  const session = await mapped(() => openSession({ cwd: args.cwd, env, overrides: { ...overridesOf(args), ...model, mode }, host, title }));
  return webSession(session, title, [], (message, images) => session.task.run(message, images));
}

export async function openStoredTask(args: RunArgs, id: string, host: Host, env: NodeJS.ProcessEnv): Promise<WebSession> {
  const session = await mapped(() => resumeSession({ id, env, overrides: overridesOf(args), host }));
  const resumed = session.resumed!;
  return webSession(session, resumed.meta.title, withPersonMessages(resumed.events, resumed.messages), (message, images) => {
    session.store.claim();
    return session.task.continue(resumeMessage(resumed, session.settings.mode, message || undefined), images);
  });
}
