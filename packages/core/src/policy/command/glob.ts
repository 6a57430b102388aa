import type { Piece } from "./words.js";

/**
 * Rule patterns. `*` matches any run of characters, spaces and `/` included (`git *` matches
 * `git push origin main`); `?` matches exactly one character; everything else is literal and
 * case-sensitive. A pattern must match a whole segment. Runs of whitespace in a pattern count
 * as one space, as segments are their words joined by single spaces. `*` cannot reach into
 * another command, because each segment is matched on its own.
 */
export type Pattern = { source: string; tokens: PatternToken[] };
type PatternToken = "*" | "?" | { char: string };

export function compilePattern(source: string): Pattern {
  const normalised = source.trim().replace(/\s+/g, " ");
  const tokens: PatternToken[] = [];
  for (const char of normalised) {
    if (char === "*") {
      if (tokens.at(-1) !== "*") tokens.push("*");
    } else if (char === "?") tokens.push("?");
    else tokens.push({ char });
  }
  return { source, tokens };
}

/** A segment as characters and holes (see words.ts). */
type SegmentToken = { char: string } | "any" | "one";

function segmentTokens(pieces: readonly Piece[]): SegmentToken[] {
  const tokens: SegmentToken[] = [];
  for (const piece of pieces) {
    if (piece.kind === "lit") for (const char of piece.text) tokens.push({ char });
    else tokens.push(piece.kind);
  }
  return tokens;
}

/**
 * Whether the pattern matches the segment for SOME value of its holes: used for deny rules, so
 * `$CMD -rf /` or `rm -r? /` is denied by `rm -rf *`.
 */
export function mayMatch(pattern: Pattern, pieces: readonly Piece[]): boolean {
  const p = pattern.tokens;
  const s = segmentTokens(pieces);
  // row[j]: pattern[0..i) can match segment[0..j), where a hole at j may already have produced text.
  let previous = new Uint8Array(s.length + 1);
  let row = new Uint8Array(s.length + 1);
  row[0] = 1;
  for (let j = 1; j <= s.length; j++) row[j] = s[j - 1] === "any" && row[j - 1] === 1 ? 1 : 0;
  for (let i = 1; i <= p.length; i++) {
    [previous, row] = [row, previous];
    const pc = p[i - 1];
    for (let j = 0; j <= s.length; j++) {
      const sc = s[j - 1];
      let ok = false;
      if (pc === "*") {
        ok = previous[j] === 1 || (j > 0 && row[j - 1] === 1); // empty, or eats s[j-1] whatever it is
      } else {
        if (j > 0 && sc !== undefined && sc !== "any" && previous[j - 1] === 1 && couldBeEqual(pc, sc)) ok = true;
        if (!ok && s[j] === "any" && previous[j] === 1) ok = true; // the hole at j produces this character
        if (!ok && j > 0 && sc === "any" && row[j - 1] === 1) ok = true; // the hole at j-1 ends here
      }
      row[j] = ok ? 1 : 0;
    }
  }
  return row[s.length] === 1;
}

/**
 * Whether the pattern matches the segment for EVERY value of its holes: used for allow rules.
 * A hole can only be covered by `*` (a one-character hole also by `?`), so `npm test $X` is
 * allowed by `npm test *` and not by `npm test`.
 */
export function mustMatch(pattern: Pattern, pieces: readonly Piece[]): boolean {
  const p = pattern.tokens;
  const s = segmentTokens(pieces);
  let previous = new Uint8Array(s.length + 1);
  let row = new Uint8Array(s.length + 1);
  row[0] = 1;
  for (let i = 1; i <= p.length; i++) {
    [previous, row] = [row, previous];
    const pc = p[i - 1];
    for (let j = 0; j <= s.length; j++) {
      const sc = s[j - 1];
      let ok = false;
      if (pc === "*") ok = previous[j] === 1 || (j > 0 && row[j - 1] === 1);
      else if (j > 0 && sc !== undefined && previous[j - 1] === 1) {
        ok = pc === "?" ? sc !== "any" : typeof sc === "object" && sc.char === pc?.char;
      }
      row[j] = ok ? 1 : 0;
    }
  }
  return row[s.length] === 1;
}

function couldBeEqual(pc: PatternToken | undefined, sc: SegmentToken): boolean {
  if (pc === undefined || pc === "*") return false;
  if (pc === "?" || sc === "one" || sc === "any") return true;
  return pc.char === sc.char;
}
