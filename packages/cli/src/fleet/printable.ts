import { terminalText } from "../terminal-text.js";

/**
 * Text from the queue on its way to a terminal. Everything a job carries (the model's words, a
 * command's summary, a failure reason, the task, the repository) was written by someone else, and
 * a terminal obeys what it prints: OSC 52 writes the clipboard, CSI clears the screen or moves the
 * cursor, a lone \r or bidirectional overrides draw one thing over another. The CLI's one cleaner
 * (terminal-text.ts) takes them all out; newlines and tabs stay where the text has them.
 */
export function printable(text: string): string {
  return terminalText(text);
}

/** The same, for a cell of a table or a field of a one-line summary: newlines and tabs become spaces. */
export function printableLine(text: string): string {
  return printable(text).replace(/[\n\t]/g, " ");
}

/**
 * JSON for a terminal or a pipe, lossless: JSON.stringify escapes C0 controls, but leaves DEL, C1
 * controls (\x9b is CSI on some terminals), line/paragraph separators and bidi controls as they are;
 * they can only be inside strings, where \uXXXX means the same.
 */
export function printableJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
