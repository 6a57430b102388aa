import { plainCharacters } from "../policy/command/index.js";

/**
 * Watches command calls' input as it streams, for the first sign that a command is not plain
 * (plain-script.ts: a quote, `$`, a redirect, a pattern…). Then `notPlain` is told, once: the bash
 * parser such a command needs starts loading while the rest of the call streams, not after it. A
 * plain command (`ls -la`, `cd app && npm test`) needs no parser.
 */
export class CommandInputWatch {
  /** The JSON arguments streamed so far of each command call (native calls); XML calls stream the command itself. */
  readonly #arguments = new Map<string, string>();
  #told = false;

  constructor(private readonly notPlain: () => void) {}

  /** A command call has begun to stream. */
  start(id: string): void {
    if (!this.#told) this.#arguments.set(id, "");
  }

  /** A piece of a call's input: `param` names the parameter it belongs to (XML calls), or is null for a piece of the JSON arguments. */
  delta(id: string, param: string | null, text: string): void {
    const streamed = this.#arguments.get(id);
    if (streamed === undefined) return; // not a command call, or already told
    if (param !== null) {
      if (param === "command" && !plainCharacters(text)) this.#tell();
      return;
    }
    const json = streamed + text;
    this.#arguments.set(id, json);
    // The command's JSON string so far; any escape (\", \n, \\…) decodes to a character a plain script lacks.
    const found = /"command"\s*:\s*"((?:[^"\\]|\\.)*)(")?/.exec(json);
    if (found === null) return;
    if (!plainCharacters(found[1] ?? "")) this.#tell();
    // Its closing quote came and it is plain: the rest of the arguments need not be read again at every piece.
    else if (found[2] !== undefined) this.#arguments.delete(id);
  }

  #tell(): void {
    this.#told = true;
    this.#arguments.clear();
    this.notPlain();
  }
}
