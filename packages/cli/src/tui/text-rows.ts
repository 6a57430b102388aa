/**
 * Row arithmetic for the live region, which must never grow taller than the terminal (ink then
 * clears the screen and reprints the whole history: the flicker people complain about). An
 * estimate is enough here: a row budget with some slack, not a layout engine.
 */

/** Rows a line takes when wrapped at `width` columns (at least one). */
export function rowsOf(line: string, width: number): number {
  const w = Math.max(1, width);
  let length = 0;
  for (const char of line) length += wide(char) ? 2 : 1;
  return Math.max(1, Math.ceil(length / w));
}

/** Columns a character takes: 2 for wide (CJK, emoji), 0 for combining marks and joiners, else 1. */
export function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200d) || (code >= 0xfe00 && code <= 0xfe0f)) return 0;
  return wide(char) ? 2 : 1;
}

function wide(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) || (code >= 0x1f300 && code <= 0x1faff) || (code >= 0x20000 && code <= 0x3fffd);
}

/** The end of the text that fits in `maxRows` rows, and how many lines were left out above it. */
export function tailRows(text: string, width: number, maxRows: number): { text: string; hiddenLines: number } {
  const lines = text.split("\n");
  let rows = 0;
  let start = lines.length;
  while (start > 0) {
    const next = rowsOf(lines[start - 1]!, width);
    if (rows + next > maxRows) break;
    rows += next;
    start--;
  }
  if (start === lines.length && lines.length > 0) {
    // One line longer than the whole budget: keep its end.
    const last = lines.at(-1)!;
    const keep = Math.max(1, width * maxRows - 1);
    return { text: `…${[...last].slice(-keep).join("")}`, hiddenLines: lines.length - 1 };
  }
  return { text: lines.slice(start).join("\n"), hiddenLines: start };
}

/** Splits off the complete lines beyond the last `keepRows` rows: they can move to the history. */
export function overflowLines(text: string, width: number, keepRows: number): { done: string; rest: string } {
  const lastNewline = text.lastIndexOf("\n");
  if (lastNewline === -1) return { done: "", rest: text };
  const lines = text.split("\n");
  let rows = 0;
  let keepFrom = lines.length;
  while (keepFrom > 0) {
    const next = rowsOf(lines[keepFrom - 1]!, width);
    if (rows + next > keepRows) break;
    rows += next;
    keepFrom--;
  }
  // Only whole lines move; the last (partial) line always stays live.
  const cut = Math.min(keepFrom, lines.length - 1);
  if (cut <= 0) return { done: "", rest: text };
  return { done: lines.slice(0, cut).join("\n"), rest: lines.slice(cut).join("\n") };
}

export function truncate(text: string, max: number): string {
  const line = text.replace(/\s*\n[\s\S]*$/, " …");
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1))}…` : line;
}
