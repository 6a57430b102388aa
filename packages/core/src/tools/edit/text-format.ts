import type { LineSpan } from "./match.js";

/** Longer lines are cut when shown (never when matched), so one minified line cannot flood a message. */
const MAX_SHOWN_LINE_CHARS = 400;

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "a", "a and b", "a, b and c". */
export function listJoin(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** 1-based line ranges of 0-based spans: "line 12", "lines 10-14 and 40-41". */
export function formatSpans(spans: readonly LineSpan[]): string {
  const items = spans.map(({ first, count }) => (count <= 1 ? `${first + 1}` : `${first + 1}-${first + count}`));
  const [only] = spans;
  const single = spans.length === 1 && only !== undefined && only.count === 1;
  return `${single ? "line" : "lines"} ${listJoin(items)}`;
}

/** Lines `first..end-1` (0-based) labelled with 1-based numbers: "  12 | code". */
export function numberedLines(lines: readonly string[], first: number, end: number): string {
  const width = String(lines.length).length;
  const out: string[] = [];
  for (let i = Math.max(first, 0); i < Math.min(end, lines.length); i++) {
    out.push(`${String(i + 1).padStart(width)} | ${clipLine(lines[i] ?? "")}`);
  }
  return out.join("\n");
}

/** Quotes lines for a message, keeping the head and tail of a long list. */
export function quoteLines(lines: readonly string[], max = 40): string {
  if (lines.length <= max) return lines.map(clipLine).join("\n");
  const head = lines.slice(0, Math.ceil(max * 0.6)).map(clipLine);
  const tail = lines.slice(lines.length - Math.floor(max * 0.4)).map(clipLine);
  return [...head, `[… ${lines.length - head.length - tail.length} more lines …]`, ...tail].join("\n");
}

export function clipLine(line: string): string {
  return line.length <= MAX_SHOWN_LINE_CHARS ? line : `${line.slice(0, MAX_SHOWN_LINE_CHARS)}… [line cut: ${line.length} chars]`;
}
