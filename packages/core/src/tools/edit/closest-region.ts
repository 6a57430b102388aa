import type { LineSpan } from "./match.js";

export type Region = LineSpan & {
  /** Mean similarity of the window's lines to the SEARCH lines, 0..1. */
  similarity: number;
};

/** Above this many line comparisons, windows are first ranked on a few telling SEARCH lines. */
const FULL_SCAN_BUDGET = 400_000;
const SAMPLE_LINES = 6;
const RESCORED_WINDOWS = 25;

/**
 * The window of the file most like the SEARCH lines, compared line by line (each line's similarity
 * is the Dice coefficient of its character pairs, whitespace runs collapsed), so a failed edit can
 * show the model what the text really looks like now. Undefined for an empty file or no SEARCH.
 */
export function closestRegion(fileLines: readonly string[], search: readonly string[]): Region | undefined {
  const width = Math.min(search.length, fileLines.length);
  if (width === 0) return undefined;
  const profiles = new ProfileCache(fileLines);
  const wanted = search.slice(0, width).map(profile);
  const starts = fileLines.length - width + 1;
  const score = (first: number, rows: readonly number[]): number => {
    let sum = 0;
    for (const i of rows) sum += dice(wanted[i] as Profile, profiles.get(first + i));
    return sum / rows.length;
  };
  const allRows = wanted.map((_, i) => i);

  let candidates: number[];
  if (starts * width <= FULL_SCAN_BUDGET) {
    candidates = Array.from({ length: starts }, (_, i) => i);
  } else {
    const telling = allRows
      .filter((i) => (wanted[i]?.length ?? 0) > 0)
      .sort((a, b) => (wanted[b]?.length ?? 0) - (wanted[a]?.length ?? 0))
      .slice(0, SAMPLE_LINES);
    const rows = telling.length > 0 ? telling : allRows.slice(0, SAMPLE_LINES);
    const ranked = Array.from({ length: starts }, (_, first) => ({ first, score: score(first, rows) }));
    ranked.sort((a, b) => b.score - a.score || a.first - b.first);
    candidates = ranked.slice(0, RESCORED_WINDOWS).map((r) => r.first);
  }

  let best: Region | undefined;
  for (const first of candidates) {
    const similarity = score(first, allRows);
    if (best === undefined || similarity > best.similarity || (similarity === best.similarity && first < best.first)) {
      best = { first, count: width, similarity };
    }
  }
  return best;
}

/** A line's character pairs as sorted codes (a one-character line is its own pair), compared by merging. */
type Profile = Uint32Array;

function profile(line: string): Profile {
  const text = line.trim().replace(/\s+/g, " ");
  if (text.length === 1) return Uint32Array.of(text.charCodeAt(0));
  const codes = new Uint32Array(Math.max(text.length - 1, 0));
  for (let i = 0; i + 1 < text.length; i++) codes[i] = ((text.charCodeAt(i) << 16) | text.charCodeAt(i + 1)) >>> 0;
  return codes.sort();
}

/** Dice coefficient of two pair multisets. */
function dice(a: Profile, b: Profile): number {
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      shared += 1;
      i += 1;
      j += 1;
    } else if (x < y) i += 1;
    else j += 1;
  }
  return (2 * shared) / (a.length + b.length);
}

class ProfileCache {
  private readonly cache: Array<Profile | undefined>;
  constructor(private readonly lines: readonly string[]) {
    this.cache = new Array<Profile | undefined>(lines.length);
  }
  get(i: number): Profile {
    return (this.cache[i] ??= profile(this.lines[i] ?? ""));
  }
}
