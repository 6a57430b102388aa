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
 * overrides and isolates that make text read other than it is (a file name shown reversed).
 */
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
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
