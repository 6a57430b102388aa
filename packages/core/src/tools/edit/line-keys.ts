/**
 * How lines compare under each whole-line strategy: a key for indexing, and the same comparison
 * done in place (no new string per file line), for the usual edit that looks up only a few blocks.
 */
export type LineStrategy = "exact" | "trimmed" | "whitespace";

export type LineComparison = {
  strategy: LineStrategy;
  key(line: string): string;
  /** Whether `line`'s key equals `key`. */
  matches(line: string, key: string): boolean;
};

export const LINE_COMPARISONS: readonly LineComparison[] = [
  { strategy: "exact", key: (line) => line, matches: (line, key) => line === key },
  { strategy: "trimmed", key: (line) => line.trim(), matches: trimmedEquals },
  { strategy: "whitespace", key: collapseWhitespace, matches: collapsedEquals },
];

/** Trimmed, one space per whitespace run, NFC; the checks skip the costly steps on the usual plain-ASCII line. */
export function collapseWhitespace(line: string): string {
  const trimmed = line.trim();
  const collapsed = /\s\s|[^\S ]/.test(trimmed) ? trimmed.replace(/\s+/g, " ") : trimmed;
  return /^[\x00-\x7f]*$/.test(collapsed) ? collapsed : collapsed.normalize("NFC");
}

/** ASCII whitespace as `String.prototype.trim` and `\s` see it. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

function trimmedEquals(line: string, key: string): boolean {
  let start = 0;
  let end = line.length;
  while (start < end && isSpace(line.charCodeAt(start))) start += 1;
  while (end > start && isSpace(line.charCodeAt(end - 1))) end -= 1;
  // Non-ASCII whitespace (a no-break space) at an edge: let trim() decide.
  if (start < end && (line.charCodeAt(start) > 127 || line.charCodeAt(end - 1) > 127)) return line.trim() === key;
  return end - start === key.length && line.startsWith(key, start);
}

/**
 * Walks both as plain ASCII. Anything else in the line (which NFC may recompose, or which may be
 * Unicode whitespace) goes the slow, exact way; two different ASCII characters can never become equal.
 */
function collapsedEquals(line: string, key: string): boolean {
  let i = 0;
  let j = 0;
  const n = line.length;
  while (i < n && isSpace(line.charCodeAt(i))) i += 1;
  while (i < n) {
    const code = line.charCodeAt(i);
    if (code > 127 || key.charCodeAt(j) > 127) return collapseWhitespace(line) === key;
    if (isSpace(code)) {
      let k = i;
      while (k < n && isSpace(line.charCodeAt(k))) k += 1;
      if (k === n) break;
      if (key.charCodeAt(j) !== 32) return false;
      j += 1;
      i = k;
      continue;
    }
    if (key.charCodeAt(j) !== code) return false;
    i += 1;
    j += 1;
  }
  return j === key.length;
}

