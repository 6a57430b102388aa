import { diffLines, type DiffOp } from "./line-diff.js";
import { clipLine } from "./text-format.js";

const CONTEXT = 2;
const MAX_LINES = 60;
const MAX_CHARS = 6_000;

/**
 * How a whole-file rewrite changed the file, for files too large to echo back: line counts and the
 * changed regions as a compact unified diff (capped), so the model knows what is on disk.
 */
export function summarizeRewrite(before: string, after: string): string {
  const ops = diffLines(before.split("\n"), after.split("\n"));
  const added = ops.filter((op) => op.type === "+").length;
  const removed = ops.filter((op) => op.type === "-").length;
  if (added === 0 && removed === 0) return "No line changed.";
  const lines: string[] = [];
  let chars = 0;
  let cut = false;
  let oldLine = 1;
  let newLine = 1;
  let i = 0;
  while (i < ops.length && !cut) {
    if (ops[i]!.type === " ") {
      oldLine++;
      newLine++;
      i++;
      continue;
    }
    // A hunk: context before, the run of changes (merging changes separated by little context), context after.
    const start = Math.max(0, i - CONTEXT);
    let end = i;
    while (end < ops.length) {
      if (ops[end]!.type !== " ") {
        end++;
        continue;
      }
      let gap = end;
      while (gap < ops.length && ops[gap]!.type === " ") gap++;
      if (gap < ops.length && gap - end <= CONTEXT * 2) end = gap;
      else break;
    }
    const stop = Math.min(ops.length, end + CONTEXT);
    const hunk: DiffOp[] = ops.slice(start, stop);
    const header = `@@ -${oldLine - (i - start)} +${newLine - (i - start)} @@`;
    for (const text of [header, ...hunk.map((op) => `${op.type}${clipLine(op.text)}`)]) {
      if (lines.length >= MAX_LINES || chars + text.length > MAX_CHARS) {
        cut = true;
        break;
      }
      lines.push(text);
      chars += text.length + 1;
    }
    for (const op of ops.slice(i, stop)) {
      if (op.type !== "+") oldLine++;
      if (op.type !== "-") newLine++;
    }
    i = stop;
  }
  return [`Lines: +${added} −${removed}.`, ...lines, ...(cut ? ["[... more changes not shown; read the file to see them]"] : [])].join("\n");
}
