import { SessionRunner, type AgentEvent, type Host, type ServerConfig, type TextFiles } from "@cairn/core";
import { cairnHome } from "@cairn/core/storage";
import type { Io } from "@cairn/host/io";
import type { SessionRecordings } from "@cairn/host/record";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { earlierEvents, handoffChain } from "./handoff.js";

/**
 * How `cairn acp` opens and reopens tasks: core's session runner, with what only an editor brings
 * (its MCP servers, its buffers as the files). The run options `cairn acp` was started with are
 * the overrides; the workspace is the one the editor names.
 */
export type EditorAdditions = {
  /** The editor's MCP servers, merged with the person's (the editor's replace one of the same name). */
  mcpServers: ServerConfig[];
  /** The editor's buffers, when it offers fs/read_text_file and fs/write_text_file. */
  files?: TextFiles;
};

/** `recordings`: with --record, each session's model exchanges are written there. */
export type Opening = { args: RunArgs; io: Io; host: Host; editor: EditorAdditions; recordings?: SessionRecordings | undefined };

/** The runner `open` makes, recorded when --record asks. */
function recorded(o: Opening, open: (fetch: { modelFetch?: typeof globalThis.fetch }) => Promise<SessionRunner>): Promise<SessionRunner> {
  return o.recordings ? o.recordings.record(open) : open({});
}

/** A task stored at once (session/new), so another process can load it before its first prompt. */
export async function createTask(o: Opening & { cwd: string }): Promise<SessionRunner> {
  return told(await recorded(o, (fetch) => SessionRunner.create({ cwd: o.cwd, env: o.io.env, overrides: overridesOf(o.args), host: o.host, ...o.editor, ...fetch })), o.io);
}

/**
 * `id` names the editor's thread: its first task; the work goes on in the last task it was handed
 * over to, in `cwd`, the folder the editor has open (the project the person sees and expects the
 * edits in): a task stored with another workspace moves there, its model told so. `earlier`: the
 * recorded events of the thread's tasks before that one, to replay first.
 */
export async function loadTask(o: Opening & { id: string; cwd: string }): Promise<{ runner: SessionRunner; earlier: AgentEvent[] }> {
  let chain: ReturnType<typeof handoffChain> = [];
  try {
    chain = handoffChain(cairnHome(o.io.env), o.id);
  } catch {
    // No such task: resume says so in its own words.
  }
  const id = chain.at(-1)?.id ?? o.id;
  const runner = await recorded(o, (fetch) => SessionRunner.resume({ id, cwd: o.cwd, env: o.io.env, overrides: overridesOf(o.args), host: o.host, ...o.editor, ...fetch }));
  return { runner: told(runner, o.io), earlier: earlierEvents(chain) };
}

/** Notices go to stderr, the editor's log for the agent: stdout is the protocol's. */
function told(runner: SessionRunner, io: Io): SessionRunner {
  for (const notice of runner.session?.notices ?? []) io.stderr(`cairn: ${notice}\n`);
  return runner;
}
