/**
 * What the peers bench needs to know of an agent (Cairn or a peer) to run one scripted task
 * headless: its command line, how to tell its main loop's requests from its side requests, and how
 * each step of the task is called in its own tools.
 */
import type { RecordedRequest, ScriptedTurn } from "../../test/support/scripted-model-server.js";

/** A step of a task, as the model decides it; each agent words it in its own tools. */
export type Step =
  | { kind: "read"; file: string }
  | { kind: "edit"; file: string; old: string; new: string }
  | { kind: "command"; command: string }
  | { kind: "finish"; text: string };

/** Where a task runs: the scripted model's URL, the workspace, a home and a temp folder of its own. */
export type Place = { url: string; ws: string; home: string; tmp: string };

export type Agent = {
  /** As shown in the table, with the version for a peer. */
  name: string;
  /** Set-up before the timed command, in its home (e.g. a peer's provider login); throws in one line when it fails. */
  prepare?(place: Place): Promise<void>;
  /** The command and its environment for a headless task with `prompt` (the environment is the whole of it). */
  command(place: Place, prompt: string): { argv: string[]; env: NodeJS.ProcessEnv };
  /** A request of the task's own loop (the script answers it), not a title, a quota check or a summary. */
  isMainLoop(request: RecordedRequest): boolean;
  /** The answer to a side request. */
  sideAnswer(request: RecordedRequest): ScriptedTurn;
  /** The model's reply taking `step`, in this agent's tools. */
  turn(step: Step, place: Place, request: RecordedRequest): ScriptedTurn;
};

/** A side request's answer: plain text, which every kind (a title, a topic check) accepts. */
export const textTurn = (text: string): ScriptedTurn => ({ content: [{ type: "text", text }] });
export const toolTurn = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

/** The names of the tools a request offers, on either wire (Anthropic `name`, OpenAI `function.name`). */
export function toolNames(request: RecordedRequest): string[] {
  const body = request.body as { tools?: Array<{ name?: string; function?: { name?: string } }> };
  return (body.tools ?? []).map((t) => t.name ?? t.function?.name ?? "");
}

/** The environment a peer starts from: nothing of this machine's home, settings or credentials. */
export function isolatedEnv(place: Place): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: place.home,
    USER: process.env.USER ?? "bench",
    LANG: "C.UTF-8",
    TMPDIR: place.tmp,
    XDG_CONFIG_HOME: `${place.home}/.config`,
    XDG_DATA_HOME: `${place.home}/.local/share`,
    XDG_STATE_HOME: `${place.home}/.local/state`,
    XDG_CACHE_HOME: `${place.home}/.cache`,
    CI: "1",
    NO_COLOR: "1",
  };
}
