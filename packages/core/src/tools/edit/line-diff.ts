export type DiffOp = { type: " " | "-" | "+"; text: string };

/** Above this many cells the middle of a block is shown as all removed then all added, not aligned. */
const LCS_BUDGET = 250_000;

/** A line diff of two (small) line lists: common ends kept, the middle aligned by longest common subsequence. */
export function diffLines(before: readonly string[], after: readonly string[]): DiffOp[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head += 1;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  ) {
    tail += 1;
  }
  const a = before.slice(head, before.length - tail);
  const b = after.slice(head, after.length - tail);
  const same = (text: string): DiffOp => ({ type: " ", text });
  return [...before.slice(0, head).map(same), ...alignMiddle(a, b), ...before.slice(before.length - tail).map(same)];
}

function alignMiddle(a: readonly string[], b: readonly string[]): DiffOp[] {
  const removed = a.map((text): DiffOp => ({ type: "-", text }));
  const added = b.map((text): DiffOp => ({ type: "+", text }));
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > LCS_BUDGET) return [...removed, ...added];
  const width = b.length + 1;
  // lengths[i * width + j]: LCS of a[i..] and b[j..]
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ type: " ", text: a[i] ?? "" });
      i += 1;
      j += 1;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      ops.push({ type: "-", text: a[i] ?? "" });
      i += 1;
    } else {
      ops.push({ type: "+", text: b[j] ?? "" });
      j += 1;
    }
  }
  for (; i < a.length; i++) ops.push({ type: "-", text: a[i] ?? "" });
  for (; j < b.length; j++) ops.push({ type: "+", text: b[j] ?? "" });
  return ops;
}
