import type { Host, Task } from "@cairn/core";
// Until core's session API (openSession/resumeSession) lands, tasks open the way the CLI opens
// them; this file is the only place the web host reaches for that, so switching is one edit.
import { closeTask, reopenTask, resumeMessage, startTask, type OpenedTask } from "cairn/dist/open-task.js";
import type { RunArgs } from "cairn/dist/run-args.js";
import { UsageError } from "cairn/dist/usage-error.js";

export type WebSession = {
  id: string;
  task: Task;
  title: string;
  cwd: string;
  model: { id: string; provider: string; contextWindow: number | null };
  mode: "act" | "plan";
  /** One-line notices for the person (hooks, sandbox, MCP problems). */
  notices: string[];
  /** The first message of the first run: the task itself, or (for a stored task) the message that carries it on. */
  firstRun(message: string): AsyncGenerator<import("@cairn/core").AgentEvent, import("@cairn/core").TaskResult>;
  close(): Promise<void>;
};

/** A failure the person must act on (bad options, unknown task): shown as it is. */
export class OpenError extends Error {}

function collectingIo(env: NodeJS.ProcessEnv, notices: string[]) {
  return {
    stdout: () => {},
    stderr: (text: string) => {
      for (const line of text.split("\n")) if (line.trim()) notices.push(line.replace(/^cairn: /, ""));
    },
    env,
  };
}

function sessionOf(opened: OpenedTask, title: string, mode: "act" | "plan", notices: string[], firstRun: WebSession["firstRun"]): WebSession {
  return {
    id: opened.store.id,
    task: opened.task,
    title,
    cwd: opened.config.cwd,
    model: { id: opened.config.model.id, provider: opened.config.model.provider, contextWindow: opened.config.model.info?.contextWindow ?? null },
    mode,
    notices,
    firstRun,
    close: () => closeTask(opened),
  };
}

async function mapped<T>(open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof UsageError) throw new OpenError(error.message);
    throw error;
  }
}

export async function openNewTask(args: RunArgs, text: string, host: Host, mode: "act" | "plan", env: NodeJS.ProcessEnv): Promise<WebSession> {
  const notices: string[] = [];
  const title = text.split("\n")[0]!.slice(0, 200);
  const opened = await mapped(() => startTask(args, title, collectingIo(env, notices), host, mode));
  return sessionOf(opened, title, mode, notices, (message) => opened.task.run(message));
}

export async function openStoredTask(args: RunArgs, id: string, host: Host, env: NodeJS.ProcessEnv): Promise<WebSession> {
  const notices: string[] = [];
  const opened = await mapped(() => reopenTask(args, id, collectingIo(env, notices), host));
  const resumed = opened.resumed!;
  const mode = args.mode ?? resumed.meta.mode;
  return sessionOf(opened, resumed.meta.title, mode, notices, (message) => {
    opened.store.claim();
    return opened.task.continue(resumeMessage(resumed, mode, message || undefined));
  });
}
