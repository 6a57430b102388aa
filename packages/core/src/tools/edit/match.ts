import { lfView, type LfView, type SourceText } from "./line-endings.js";
import { LINE_COMPARISONS, type LineComparison, type LineStrategy } from "./line-keys.js";

/**
 * How a SEARCH was found, strictest first. The line strategies compare whole lines only:
 * - exact: lines equal character for character (line endings aside);
 * - trimmed: lines equal once leading and trailing whitespace is ignored (trailing spaces, indentation drift);
 * - whitespace: lines equal once every run of whitespace counts as one space and Unicode is NFC-normalised
 *   (tabs vs spaces inside lines, composed vs combining accents).
 * - fragment: the SEARCH text occurs exactly, but not as whole lines (part of a line, e.g. `ne2`).
 *   Tried last, and only exact text: a fuzzy match is always on whole lines.
 * A strategy that finds two or more places is an error, never a guess; there is no "first and last line
 * match" strategy, because it edits code the model never saw.
 */
export type Strategy = "exact" | "trimmed" | "whitespace" | "fragment";

/** Lines `first .. first + count - 1`, 0-based. */
export type LineSpan = { first: number; count: number };

export type Match =
  | { type: "lines"; strategy: LineStrategy; first: number; count: number }
  /** Offsets into `source.text`, and the lines they touch. */
  | { type: "fragment"; strategy: "fragment"; start: number; end: number; first: number; count: number };

export type MatchOutcome =
  | { type: "match"; match: Match }
  | { type: "ambiguous"; strategy: Strategy; candidates: LineSpan[]; total: number }
  | { type: "none" };

/** How many lookups per strategy scan the file line by line before an index of its lines pays off. */
const SCAN_LOOKUPS = 32;
/** How many places an ambiguity error lists. */
const MAX_CANDIDATES = 10;

/**
 * Each distinct key's occurrences as a chain through typed arrays (no array per key):
 * `heads` gives the first line, `next` the following one.
 */
type LineIndex = {
  heads: Map<string, number>;
  next: Int32Array;
  /** Occurrences of the key whose first line this is. */
  counts: Int32Array;
};

/**
 * Finds SEARCH blocks in one file. A lookup scans the file comparing lines in place (no allocation);
 * once a strategy has been asked often (a diff of many blocks), the file's keys for it are indexed,
 * so each further lookup costs the occurrences of the SEARCH's rarest line: linear in the diff overall.
 */
export class LineMatcher {
  private readonly indexes = new Map<LineStrategy, LineIndex>();
  private readonly lookups = new Map<LineStrategy, number>();
  private view: LfView | undefined;

  constructor(private readonly source: SourceText) {}

  find(search: readonly string[]): MatchOutcome {
    for (const comparison of LINE_COMPARISONS) {
      const hits = this.lineHits(comparison, search.map(comparison.key));
      const [only] = hits;
      if (only === undefined) continue;
      const strategy = comparison.strategy;
      if (hits.length === 1) return { type: "match", match: { type: "lines", strategy, first: only, count: search.length } };
      return {
        type: "ambiguous",
        strategy,
        total: hits.length,
        candidates: hits.slice(0, MAX_CANDIDATES).map((first) => ({ first, count: search.length })),
      };
    }
    return this.findFragment(search);
  }

  /** First lines of every place where all `wanted` keys match consecutive file lines. */
  private lineHits(comparison: LineComparison, wanted: readonly string[]): number[] {
    const { lines } = this.source;
    const lookups = (this.lookups.get(comparison.strategy) ?? 0) + 1;
    this.lookups.set(comparison.strategy, lookups);
    const index = lookups > SCAN_LOOKUPS ? this.index(comparison) : undefined;

    // Candidates come from one SEARCH line: the rarest in the index, else the longest (the most telling).
    let anchor = 0;
    let anchorHead = -1;
    if (index !== undefined) {
      for (let i = 0; i < wanted.length; i++) {
        const head = index.heads.get(wanted[i] ?? "");
        if (head === undefined) return [];
        if (anchorHead === -1 || (index.counts[head] ?? 0) < (index.counts[anchorHead] ?? 0)) {
          anchor = i;
          anchorHead = head;
        }
      }
    } else {
      wanted.forEach((key, i) => {
        if (key.length > (wanted[anchor] ?? "").length) anchor = i;
      });
    }

    const hits: number[] = [];
    const tryAt = (first: number): void => {
      if (first < 0 || first + wanted.length > lines.length) return;
      for (let i = 0; i < wanted.length; i++) {
        if (i !== anchor && !comparison.matches(lines[first + i] ?? "", wanted[i] ?? "")) return;
      }
      hits.push(first);
    };
    if (index !== undefined) {
      for (let at = anchorHead; at !== -1; at = index.next[at] ?? -1) tryAt(at - anchor);
      return hits;
    }
    const anchorKey = wanted[anchor] ?? "";
    for (let at = 0; at < lines.length; at++) {
      if (comparison.matches(lines[at] ?? "", anchorKey)) tryAt(at - anchor);
    }
    return hits;
  }

  private findFragment(search: readonly string[]): MatchOutcome {
    // A blank first or last line makes SEARCH line-shaped: matching it as text would join or split lines.
    if ((search[0] ?? "").trim() === "" || (search[search.length - 1] ?? "").trim() === "") return { type: "none" };
    const needle = search.join("\n");
    const view = (this.view ??= lfView(this.source));
    const offsets: number[] = [];
    let total = 0;
    for (let at = view.text.indexOf(needle); at !== -1; at = view.text.indexOf(needle, at + 1)) {
      total += 1;
      if (offsets.length < MAX_CANDIDATES) offsets.push(at);
    }
    const spans = offsets.map((at) => {
      const first = view.lineAt(at);
      return { at, first, count: view.lineAt(at + needle.length - 1) - first + 1 };
    });
    const [only] = spans;
    if (only === undefined) return { type: "none" };
    if (total > 1) {
      return { type: "ambiguous", strategy: "fragment", total, candidates: spans.map(({ first, count }) => ({ first, count })) };
    }
    const start = view.toSource(only.at);
    const end = view.toSource(only.at + needle.length);
    return { type: "match", match: { type: "fragment", strategy: "fragment", start, end, first: only.first, count: only.count } };
  }

  private index(comparison: LineComparison): LineIndex {
    const cached = this.indexes.get(comparison.strategy);
    if (cached !== undefined) return cached;
    const { lines } = this.source;
    const heads = new Map<string, number>();
    const next = new Int32Array(lines.length).fill(-1);
    const tails = new Int32Array(lines.length);
    const counts = new Int32Array(lines.length);
    lines.forEach((line, i) => {
      const k = comparison.key(line);
      const head = heads.get(k);
      if (head === undefined) {
        heads.set(k, i);
        tails[i] = i;
        counts[i] = 1;
        return;
      }
      next[tails[head] ?? i] = i;
      tails[head] = i;
      counts[head] = (counts[head] ?? 0) + 1;
    });
    const index = { heads, next, counts };
    this.indexes.set(comparison.strategy, index);
    return index;
  }
}
