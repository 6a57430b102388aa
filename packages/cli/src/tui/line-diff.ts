/** One line of a diff as people read it: added, removed, unchanged context, or a gap marker. */
export type DiffLine = { type: "+" | "-" | " "; text: string; line: number } | { type: "gap"; skipped: number };

/** Above this many cells the changed middle is shown as all removed then all added, not aligned. */
const LCS_BUDGET = 250_000;

type Op = { type: "+" | "-" | " "; text: string };

/** A line diff: common ends kept, the middle aligned by longest common subsequence. */
export function diffOps(before: readonly string[], after: readonly string[]): Op[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const same = (text: string): Op => ({ type: " ", text });
  const a = before.slice(head, before.length - tail);
  const b = after.slice(head, after.length - tail);
  return [...before.slice(0, head).map(same), ...alignMiddle(a, b), ...before.slice(before.length - tail).map(same)];
}

function alignMiddle(a: readonly string[], b: readonly string[]): Op[] {
  const removed = a.map((text): Op => ({ type: "-", text }));
  const added = b.map((text): Op => ({ type: "+", text }));
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > LCS_BUDGET) return [...removed, ...added];
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j] ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ type: " ", text: a[i]! });
      i++;
      j++;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      ops.push({ type: "-", text: a[i]! });
      i++;
    } else {
      ops.push({ type: "+", text: b[j]! });
      j++;
    }
  }
  for (; i < a.length; i++) ops.push({ type: "-", text: a[i]! });
  for (; j < b.length; j++) ops.push({ type: "+", text: b[j]! });
  return ops;
}

export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * The changed lines with `context` unchanged lines around each change; longer unchanged runs
 * become one gap marker. Line numbers are those of the new file (of the old one for removals).
 */
export function diffHunks(before: string, after: string, context = 2): { lines: DiffLine[]; added: number; removed: number } {
  const ops = diffOps(splitLines(before), splitLines(after));
  const numbered: Array<Extract<DiffLine, { type: "+" | "-" | " " }>> = [];
  let oldNo = 0;
  let newNo = 0;
  let added = 0;
  let removed = 0;
  for (const op of ops) {
    if (op.type === "-") {
      oldNo++;
      removed++;
      numbered.push({ type: "-", text: op.text, line: oldNo });
    } else {
      newNo++;
      if (op.type === " ") oldNo++;
      else added++;
      numbered.push({ type: op.type, text: op.text, line: newNo });
    }
  }
  const keep = new Array<boolean>(numbered.length).fill(false);
  numbered.forEach((line, index) => {
    if (line.type === " ") return;
    for (let k = Math.max(0, index - context); k <= Math.min(numbered.length - 1, index + context); k++) keep[k] = true;
  });
  const lines: DiffLine[] = [];
  let skipped = 0;
  numbered.forEach((line, index) => {
    if (keep[index]) {
      if (skipped > 0) lines.push({ type: "gap", skipped });
      skipped = 0;
      lines.push(line);
    } else {
      skipped++;
    }
  });
  if (skipped > 0 && lines.length > 0) lines.push({ type: "gap", skipped });
  return { lines, added, removed };
}
