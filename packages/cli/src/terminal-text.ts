/* eslint-disable no-control-regex -- matching control characters is this file's purpose */

/**
 * Escape sequences, whole: CSI (ESC [ … final byte), OSC (ESC ] … BEL or ST, e.g. OSC 52, which
 * writes the person's clipboard), DCS/SOS/PM/APC strings (ESC P|X|^|_ … ST) and two-byte escapes,
 * in their 7-bit and 8-bit (C1) forms. A string left open is dropped to the end of its line.
 * Removing them whole keeps their payload (a clipboard's base64) out of sight too.
 */
const sequences =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?|(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c\n]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -~]?/g;

/**
 * What is left of any control after the sequences went: C0 but newline and tab (a carriage
 * return redraws a line over what was said; a backspace hides it), DEL, C1, and the bidi
 * overrides, isolates and marks that make text read other than it is (a file name shown reversed).
 */
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const anyControl = new RegExp(controls.source);

/**
 * Text from the model or a tool (a reply, a summary, a command's output, an error) made safe to
 * print to a terminal: no byte of it can move the cursor, clear the screen, set the title or the
 * clipboard, or start any other sequence. Newlines and tabs stay; `\r\n` becomes `\n`. The same
 * text a person reads, minus what only a terminal would have read.
 */
export function terminalText(text: string): string {
  // Fast path: most text holds no control at all.
  if (!anyControl.test(text)) return text;
  return text.replace(/\r\n/g, "\n").replace(sequences, "").replace(controls, "");
}

/** A sequence begun at the very end of a text and not finished yet (its next bytes are in the next piece). */
const openAtEnd = /(?:(?:\u001b\[|\u009b)[0-?]*[ -/]*|(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c\n]*\u001b?|\u001b)$/;
/** Longer than this, an unfinished sequence is not waited for: it is cleaned as it is. */
const maxHeld = 4096;

/**
 * Text that arrives in pieces (a streamed reply), cleaned piece by piece as terminalText cleans a
 * whole text: a sequence split across pieces is held back until it is complete and then dropped
 * whole, so not even its payload (a clipboard's base64) shows.
 */
export class TerminalStream {
  private held = "";

  push(piece: string): string {
    const text = this.held + piece;
    const open = openAtEnd.exec(text);
    if (!open || open[0].length > maxHeld) {
      this.held = "";
      return terminalText(text);
    }
    this.held = open[0];
    return terminalText(text.slice(0, open.index));
  }

  /** The stream ended: a sequence still open is dropped. */
  end(): void {
    this.held = "";
  }
}

/**
 * A copy of `value` with terminalText applied to every string in it, at any depth (an event, a
 * prompt, an item of the TUI's view): what a renderer that prints raw strings (Ink) is handed.
 * Functions and class instances are kept as they are; the walk uses no recursion.
 */
export function terminalSafe<T>(value: T): T {
  if (typeof value === "string") return terminalText(value) as T;
  if (!isPlain(value)) return value;
  const copies = new Map<object, Record<string, unknown>>();
  const copyOf = (from: object): Record<string, unknown> => {
    let copy = copies.get(from);
    if (!copy) {
      copy = (Array.isArray(from) ? [] : {}) as Record<string, unknown>;
      copies.set(from, copy);
      stack.push(from);
    }
    return copy;
  };
  const stack: object[] = [];
  const root = copyOf(value);
  while (stack.length > 0) {
    const from = stack.pop()! as Record<string, unknown>;
    const to = copies.get(from)!;
    for (const key of Object.keys(from)) {
      const child = from[key];
      to[key] = typeof child === "string" ? terminalText(child) : isPlain(child) ? copyOf(child) : child;
    }
  }
  return root as T;
}

function isPlain(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
