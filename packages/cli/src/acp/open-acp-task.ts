import { openSession, resumeMessage, resumeSession, type Host, type ServerConfig, type Session, type TextFiles } from "@cairn/core";
import type { Io } from "../headless.js";
import { overridesOf, type RunArgs } from "../run-args.js";

/**
 * How `cairn acp` opens and reopens tasks: core's sessions, with what only an editor brings (its
 * MCP servers, its buffers as the files). The run options `cairn acp` was started with are the
 * overrides; the workspace is the one the editor names.
 */
export type AcpTask = Session & { cwd: string; home: string };

export type EditorAdditions = {
  /** The editor's MCP servers, merged with the person's (the editor's replace one of the same name). */
  mcpServers: ServerConfig[];
  /** The editor's buffers, when it offers fs/read_text_file and fs/write_text_file. */
  files?: TextFiles;
};

export async function openNewTask(options: { args: RunArgs; cwd: string; title: string; io: Io; host: Host; editor: EditorAdditions }): Promise<AcpTask> {
  const session = await openSession({ cwd: options.cwd, env: options.io.env, overrides: overridesOf(options.args), host: options.host, title: options.title, ...options.editor });
  return told(session, options.io);
}

export async function openStoredTask(options: { args: RunArgs; id: string; io: Io; host: Host; editor: EditorAdditions }): Promise<AcpTask> {
  const session = await resumeSession({ id: options.id, env: options.io.env, overrides: overridesOf(options.args), host: options.host, ...options.editor });
  return told(session, options.io);
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
