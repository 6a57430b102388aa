import { plainSoFar } from "../policy/command/index.js";

/**
 * Watches command calls' input as it streams, for the first sign that a command is not plain
 * (plain-script.ts: a `$`, a pattern, a tab, a here-document…). Then `notPlain` is told, once: the
 * bash parser such a command needs starts loading while the rest of the call streams, not after it.
 * A plain command (`ls -la`, `npm test 2>&1 | tail -30`) needs no parser.
 */
export class CommandInputWatch {
  /** What has streamed of each command call: its JSON arguments (native calls), or its command (XML calls). */
  readonly #streamed = new Map<string, string>();
  #told = false;

  constructor(private readonly notPlain: () => void) {}

  /** A command call has begun to stream. */
  start(id: string): void {
    if (!this.#told) this.#streamed.set(id, "");
  }

  /** A piece of a call's input: `param` names the parameter it belongs to (XML calls), or is null for a piece of the JSON arguments. */
  delta(id: string, param: string | null, text: string): void {
    const streamed = this.#streamed.get(id);
    if (streamed === undefined) return; // not a command call, or already told
    if (param !== null) {
      if (param !== "command") return;
      this.#streamed.set(id, streamed + text);
      if (!mayBePlain(streamed + text)) this.#tell();
      return;
    }
    const json = streamed + text;
    this.#streamed.set(id, json);
    // The command's JSON string so far.
    const found = /"command"\s*:\s*"((?:[^"\\]|\\.)*)(\\?)(")?/.exec(json);
    if (found === null) return;
    if (!mayBePlain(decodeEscapes(found[1] ?? ""))) this.#tell();
    // Its closing quote came and it is plain: the rest of the arguments need not be read again at every piece.
    else if (found[3] !== undefined) this.#streamed.delete(id);
  }

  #tell(): void {
    this.#told = true;
    this.#streamed.clear();
    this.notPlain();
  }
}

/**
 * Whether a command streamed so far may need no parser. Each piece reads the command again from its
 * start, so one longer than 4 KB (a generated script, most likely not plain) loads the parser then.
 */
function mayBePlain(command: string): boolean {
  return command.length <= 4096 && plainSoFar(command);
}

/** A JSON string's escapes decoded; any but `\"`, `\/` and `\uXXXX` (a line break, a backslash…) is a character a plain script lacks. */
function decodeEscapes(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, c: string) => (c.length === 5 ? String.fromCharCode(Number.parseInt(c.slice(1), 16)) : c === '"' || c === "/" ? c : "\n"));
}
