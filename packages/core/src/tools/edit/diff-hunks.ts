import { diffLines } from "./line-diff.js";

/** One line of a diff as people read it: added, removed, unchanged context, or a gap marker. */
export type DiffLine = { type: "+" | "-" | " "; text: string; line: number } | { type: "gap"; skipped: number };

/** A text's lines, any line ending, without the empty string after a final newline. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * The diff hosts show for an edit (an approval's preview: old and new text), on the same line
 * diff the edit tools report with, so no host keeps a diff of its own. Changed lines come with
 * `context` unchanged lines around them; longer unchanged runs become one gap marker. Line
 * numbers are those of the new text (of the old one for removals).
 */
export function diffHunks(before: string, after: string, context = 2): { lines: DiffLine[]; added: number; removed: number } {
  const numbered: Array<Extract<DiffLine, { type: "+" | "-" | " " }>> = [];
  let oldNo = 0;
  let newNo = 0;
  let added = 0;
  let removed = 0;
  for (const op of diffLines(splitLines(before), splitLines(after))) {
    if (op.type === "-") {
      oldNo++;
      removed++;
      numbered.push({ type: "-", text: op.text, line: oldNo });
      continue;
    }
    newNo++;
    if (op.type === " ") oldNo++;
    else added++;
    numbered.push({ type: op.type, text: op.text, line: newNo });
  }
  const keep = new Array<boolean>(numbered.length).fill(false);
  numbered.forEach((line, index) => {
    if (line.type === " ") return;
    for (let k = Math.max(0, index - context); k <= Math.min(numbered.length - 1, index + context); k++) keep[k] = true;
  });
  const lines: DiffLine[] = [];
  let skipped = 0;
  numbered.forEach((line, index) => {
    if (!keep[index]) {
      skipped++;
      return;
    }
    if (skipped > 0) lines.push({ type: "gap", skipped });
    skipped = 0;
    lines.push(line);
  });
  if (skipped > 0 && lines.length > 0) lines.push({ type: "gap", skipped });
  return { lines, added, removed };
}
