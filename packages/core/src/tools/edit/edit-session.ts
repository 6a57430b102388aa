import { contentEnd, splitSource, withEol, type Eol, type SourceText } from "./line-endings.js";
import { LineMatcher, type LineSpan, type Match, type MatchOutcome, type Strategy } from "./match.js";
import { withoutLineNumbers } from "./line-number-prefix.js";
import type { DiffBlock } from "./parse-blocks.js";
import { reindent } from "./reindent.js";

export type BlockFailure =
  | { kind: "no-match"; block: number; search: string[] }
  | { kind: "ambiguous"; block: number; search: string[]; strategy: Strategy; candidates: LineSpan[]; total: number }
  | { kind: "overlap"; block: number; search: string[]; span: LineSpan; other: number; otherSpan: LineSpan }
  /** An empty (or blank-only) SEARCH on a file that has content; or a second one on an empty file. */
  | { kind: "empty-search"; block: number; search: string[]; fileEmpty: boolean };

/** Where one applied block landed: its lines in the original file and in the new one (0-based). */
export type Change = {
  block: number;
  strategy: Strategy | "empty-file";
  /** The REPLACE lines were re-indented to the file's indentation. */
  reindented: boolean;
  /** Matched only once blank lines at the start or end of SEARCH were dropped. */
  blankEdgesDropped: boolean;
  /** Matched only once read_file's "N | " line numbers were taken off its lines. */
  lineNumbersStripped: boolean;
  old: LineSpan;
  new: LineSpan;
};

/** An accepted block, placed in the original text. */
type Edit = {
  block: number;
  /** The range of `source.text` replaced. */
  start: number;
  end: number;
  /** The range the block claims, for overlap checks: whole lines for line matches. */
  claimStart: number;
  claimEnd: number;
  replacement: string;
  old: LineSpan;
  newCount: number;
  strategy: Strategy | "empty-file";
  reindented: boolean;
  blankEdgesDropped: boolean;
  lineNumbersStripped: boolean;
  /** Deletes the last line of a file that has no final newline, so the line before must lose its newline. */
  deletesUnterminatedEnd: boolean;
};

/**
 * One edit of one file: blocks are matched against the ORIGINAL content (so their order does not
 * matter and one block can never match text another block wrote), checked against every block
 * accepted before for overlap, and only rendered into new content at the end.
 */
export class EditSession {
  readonly source: SourceText;
  private readonly matcher: LineMatcher;
  /** Accepted edits, disjoint, in file order. */
  private readonly edits: Edit[] = [];

  constructor(original: string) {
    this.source = splitSource(original);
    this.matcher = new LineMatcher(this.source);
  }

  get appliedCount(): number {
    return this.edits.length;
  }

  /** Matches one block against the original and records it, unless it fails to match or overlaps an accepted block. */
  add(block: DiffBlock): { ok: true } | { ok: false; failure: BlockFailure } {
    const placed = this.place(block);
    if ("kind" in placed) return { ok: false, failure: placed };
    // Accepted edits are disjoint and kept in file order, so only the neighbours of the new one can overlap it.
    const at = this.insertionPoint(placed.claimStart);
    const clash = [this.edits[at - 1], this.edits[at]]
      .filter((e): e is Edit => e !== undefined && e.claimStart < placed.claimEnd && placed.claimStart < e.claimEnd)
      .sort((a, b) => a.block - b.block)[0];
    if (clash !== undefined) {
      return {
        ok: false,
        failure: { kind: "overlap", block: block.index, search: block.search, span: placed.old, other: clash.block, otherSpan: clash.old },
      };
    }
    this.edits.splice(at, 0, placed);
    return { ok: true };
  }

  /** The index of the first accepted edit that starts at or after `offset`. */
  private insertionPoint(offset: number): number {
    let low = 0;
    let high = this.edits.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.edits[mid]?.claimStart ?? 0) < offset) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The original with every accepted block applied, and where each one landed (in file order). */
  render(): { content: string; changes: Change[] } {
    const { text, bom } = this.source;
    const edits = this.edits;
    const parts = [bom];
    const changes: Change[] = [];
    let at = 0;
    let delta = 0;
    for (const edit of edits) {
      parts.push(text.slice(at, edit.start), edit.replacement);
      at = edit.end;
      changes.push({
        block: edit.block,
        strategy: edit.strategy,
        reindented: edit.reindented,
        blankEdgesDropped: edit.blankEdgesDropped,
        lineNumbersStripped: edit.lineNumbersStripped,
        old: edit.old,
        new: { first: edit.old.first + delta, count: edit.newCount },
      });
      delta += edit.newCount - edit.old.count;
    }
    parts.push(text.slice(at));
    let content = parts.join("");
    if (edits.some((e) => e.deletesUnterminatedEnd)) content = content.replace(/\r?\n$/, "");
    return { content, changes };
  }

  private place(block: DiffBlock): Edit | BlockFailure {
    if (block.search.every((line) => line.trim() === "")) return this.fillEmptyFile(block);
    const outcome = this.matcher.find(block.search);
    if (outcome.type === "none") {
      // Models often pad SEARCH with a blank line the file does not have there; the lines between are what they mean.
      const unpadded = withoutBlankEdges(block);
      const retry = unpadded === undefined ? outcome : this.matcher.find(unpadded.search);
      if (unpadded !== undefined && retry.type !== "none") return this.placeOutcome(unpadded, retry, true);
      // Lines pasted from read_file with their "N | " numbers: what the model meant is the text after them.
      const unnumbered = withoutLineNumbers(block);
      const stripped = unnumbered === undefined ? outcome : this.matcher.find(unnumbered.search);
      if (unnumbered !== undefined && stripped.type !== "none") {
        const placed = this.placeOutcome(unnumbered, stripped, false);
        if (!("kind" in placed)) placed.lineNumbersStripped = true;
        return placed;
      }
      return { kind: "no-match", block: block.index, search: block.search };
    }
    return this.placeOutcome(block, outcome, false);
  }

  private placeOutcome(block: DiffBlock, outcome: Exclude<MatchOutcome, { type: "none" }>, unpadded: boolean): Edit | BlockFailure {
    if (outcome.type === "ambiguous") {
      const { strategy, candidates, total } = outcome;
      return { kind: "ambiguous", block: block.index, search: block.search, strategy, candidates, total };
    }
    const edit = outcome.match.type === "lines" ? this.placeLines(block, outcome.match) : this.placeFragment(block, outcome.match);
    edit.blankEdgesDropped = unpadded;
    return edit;
  }

  private placeLines(block: DiffBlock, match: Extract<Match, { type: "lines" }>): Edit {
    const { lines, starts, terminators, text } = this.source;
    const end = match.first + match.count;
    const replace =
      match.strategy === "exact" ? block.replace : reindent(block.search, lines.slice(match.first, end), block.replace);
    const reindented = replace.some((line, i) => line !== block.replace[i]);
    const claimStart = starts[match.first] ?? 0;
    const claimEnd = starts[end] ?? text.length;
    const deletes = replace.length === 0;
    return {
      block: block.index,
      start: claimStart,
      end: deletes ? claimEnd : contentEnd(this.source, end - 1),
      claimStart,
      claimEnd,
      replacement: deletes ? "" : replace.join(this.eolAt(match.first)),
      old: { first: match.first, count: match.count },
      newCount: replace.length,
      strategy: match.strategy,
      reindented,
      blankEdgesDropped: false,
      lineNumbersStripped: false,
      deletesUnterminatedEnd: deletes && end === lines.length && terminators[end - 1] === "" && match.first > 0,
    };
  }

  private placeFragment(block: DiffBlock, match: Extract<Match, { type: "fragment" }>): Edit {
    const replacement = withEol(block.replace.join("\n"), this.eolAt(match.first));
    const addedBreaks = Math.max(block.replace.length - 1, 0);
    const removedBreaks = block.search.length - 1;
    return {
      block: block.index,
      start: match.start,
      end: match.end,
      claimStart: match.start,
      claimEnd: match.end,
      replacement,
      old: { first: match.first, count: match.count },
      newCount: match.count + addedBreaks - removedBreaks,
      strategy: "fragment",
      reindented: false,
      blankEdgesDropped: false,
      lineNumbersStripped: false,
      deletesUnterminatedEnd: false,
    };
  }

  /** An empty SEARCH means "this is the content" on an empty file, and is refused anywhere else. */
  private fillEmptyFile(block: DiffBlock): Edit | BlockFailure {
    const fileEmpty = this.source.text === "";
    if (!fileEmpty || this.edits.length > 0) return { kind: "empty-search", block: block.index, search: block.search, fileEmpty };
    const replacement = block.replace.length === 0 ? "" : withEol(`${block.replace.join("\n")}\n`, this.source.eol);
    return {
      block: block.index,
      start: 0,
      end: 0,
      claimStart: 0,
      claimEnd: 0,
      replacement,
      old: { first: 0, count: 0 },
      newCount: block.replace.length,
      strategy: "empty-file",
      reindented: false,
      blankEdgesDropped: false,
      lineNumbersStripped: false,
      deletesUnterminatedEnd: false,
    };
  }

  /** New lines follow the line they replace (mixed files stay locally consistent), else the file's usual ending. */
  private eolAt(line: number): Eol {
    const own = this.source.terminators[line];
    return own === undefined || own === "" ? this.source.eol : own;
  }
}

/**
 * The block without the blank lines at the start and end of its SEARCH, and without as many blank
 * lines at the same ends of its REPLACE (where it has them); undefined when SEARCH has none.
 */
function withoutBlankEdges(block: DiffBlock): DiffBlock | undefined {
  const blank = (line: string | undefined): boolean => line !== undefined && line.trim() === "";
  let lead = 0;
  while (blank(block.search[lead])) lead += 1;
  let trail = 0;
  while (blank(block.search[block.search.length - 1 - trail])) trail += 1;
  if (lead === 0 && trail === 0) return undefined;
  let from = 0;
  while (from < lead && blank(block.replace[from])) from += 1;
  let to = block.replace.length;
  while (block.replace.length - to < trail && to > from && blank(block.replace[to - 1])) to -= 1;
  return { ...block, search: block.search.slice(lead, block.search.length - trail), replace: block.replace.slice(from, to) };
}
