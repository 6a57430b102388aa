import { openSession, resumeMessage, resumeSession, type Host, type Message, type Mode, type ServerConfig, type Session, type TextFiles } from "@cairn/core";
import { cairnHome } from "@cairn/core/storage";
import type { Io } from "../headless.js";
import { overridesOf, type RunArgs } from "../run-args.js";
import { earlierConversations, handoffChain } from "./handoff.js";

/**
 * How `cairn acp` opens and reopens tasks: core's sessions, with what only an editor brings (its
 * MCP servers, its buffers as the files). The run options `cairn acp` was started with are the
 * overrides; the workspace is the one the editor names.
 */
export type AcpTask = Session & {
  cwd: string;
  home: string;
  /** Reopened after hand-offs: the conversations of the tasks before this one in the editor's thread. */
  earlier?: Message[][];
};

export type EditorAdditions = {
  /** The editor's MCP servers, merged with the person's (the editor's replace one of the same name). */
  mcpServers: ServerConfig[];
  /** The editor's buffers, when it offers fs/read_text_file and fs/write_text_file. */
  files?: TextFiles;
};

/**
 * `handedOverFrom`: the task this one carries on (new_task), stored linked to it as `cairn run`
 * does; `mode`: the session's mode then, which the new task keeps (as the terminal UI's does).
 */
export async function openNewTask(options: { args: RunArgs; cwd: string; title: string; io: Io; host: Host; editor: EditorAdditions; handedOverFrom?: Session["store"]; mode?: Mode }): Promise<AcpTask> {
  const parent = options.handedOverFrom ? { parent: { store: options.handedOverFrom, relation: "handoff" as const } } : {};
  const overrides = { ...overridesOf(options.args), ...(options.mode ? { mode: options.mode } : {}) };
  const session = await openSession({ cwd: options.cwd, env: options.io.env, overrides, host: options.host, title: options.title, ...parent, ...options.editor });
  return told(session, options.io);
}

/**
 * `id` names the editor's thread: its first task; the work goes on in the last task it was handed
 * over to, in `cwd`, the folder the editor has open (the project the person sees and expects the
 * edits in): a task stored with another workspace moves there, its model told so.
 */
export async function openStoredTask(options: { args: RunArgs; id: string; cwd: string; io: Io; host: Host; editor: EditorAdditions }): Promise<AcpTask> {
  let chain: ReturnType<typeof handoffChain> = [];
  try {
    chain = handoffChain(cairnHome(options.io.env), options.id);
  } catch {
    // No such task: resumeSession says so in its own words.
  }
  const id = chain.at(-1)?.id ?? options.id;
  const session = await resumeSession({ id, cwd: options.cwd, env: options.io.env, overrides: overridesOf(options.args), host: options.host, ...options.editor });
  const opened = told(session, options.io);
  return chain.length > 1 ? Object.assign(opened, { earlier: earlierConversations(chain) }) : opened;
}

/** The first message to a reopened task, worded for how it was left (as `cairn resume` does). */
export function firstMessageAfterLoad(opened: AcpTask, message: string): string {
  if (!opened.resumed) return message;
  opened.store.claim();
  return resumeMessage(opened.resumed, opened.task.snapshot().mode, message || undefined);
}

/** Notices go to stderr, the editor's log for the agent: stdout is the protocol's. */
function told(session: Session, io: Io): AcpTask {
  for (const notice of session.notices) io.stderr(`cairn: ${notice}\n`);
  return Object.assign(session, { cwd: session.settings.cwd, home: session.settings.home });
}
