import { closestRegion } from "./closest-region.js";
import type { BlockFailure } from "./edit-session.js";
import type { SourceText } from "./line-endings.js";
import { hasLineNumbers } from "./line-number-prefix.js";
import type { Strategy } from "./match.js";
import { EXPECTED_FORMAT } from "./parse-blocks.js";
import type { EditFailure } from "./streaming-applier.js";
import { formatSpans, listJoin, numberedLines, plural, quoteLines } from "./text-format.js";

/** Files up to this many lines are shown whole when a SEARCH is not found. */
export const WHOLE_FILE_LINES = 200;
/** Lines shown around a closest region or an ambiguous place. */
const REGION_CONTEXT = 3;
const MAX_REGION_LINES = 60;
/** Failed blocks explained in full; later ones get one line each. */
const DETAILED_FAILURES = 3;
const SHOWN_CANDIDATES = 3;
const NUMBERS_NOTE = 'the "N | " prefixes are line numbers, not part of the file';

/**
 * What the model reads when an edit cannot apply: which block failed and why, its SEARCH quoted,
 * and the file as it is now (whole when small, else the closest region) so the next try can succeed.
 */
export function describeFailure(shownPath: string, source: SourceText, failure: EditFailure): string {
  const failed = failure.blocks.map((f) => f.block);
  const headline =
    failure.parse !== undefined
      ? `the diff is malformed${failure.parse.line > 0 ? ` at its line ${failure.parse.line}` : ""}`
      : failed.length === 1
        ? `block ${failed[0]} of ${failure.blockCount} failed`
        : `blocks ${listJoin(failed.map(String))} of ${failure.blockCount} failed`;
  const sections = [
    `replace_in_file did not change ${shownPath}: ${headline}. The file is exactly as it was${failure.blockCount > 1 ? "; no block was applied, not even the ones that matched" : ""}.`,
  ];
  if (failure.parse !== undefined) sections.push(`The diff's format is wrong: ${failure.parse.message}\n\n${EXPECTED_FORMAT}`);

  const small = source.lines.length <= WHOLE_FILE_LINES;
  failure.blocks.forEach((f, k) => {
    sections.push(k < DETAILED_FAILURES ? describeBlock(f, shownPath, source, small) : briefly(f));
  });
  if (small && source.lines.length > 0 && failure.blocks.some((f) => f.kind === "no-match")) {
    sections.push(
      `The current content of ${shownPath} (${plural(source.lines.length, "line")}; ${NUMBERS_NOTE}):\n${numberedLines(source.lines, 0, source.lines.length)}`,
    );
  }
  sections.push(nextStep(failure));
  return sections.join("\n\n");
}

function nextStep(failure: EditFailure): string {
  if (failure.parse !== undefined) return "Fix the format and call replace_in_file again with all the blocks.";
  const total = failure.blockCount;
  const again = `call replace_in_file again${total <= 1 ? "" : total === 2 ? " with both blocks" : ` with all ${total} blocks`}`;
  const which = `the failing block${failure.blocks.length === 1 ? "" : "s"}`;
  if (!failure.blocks.some((f) => f.kind === "no-match")) return `Fix ${which} as described and ${again}.`;
  return `Correct ${which} (copy the SEARCH lines exactly from the current file shown above) and ${again}. If the file may have changed since you read it, read_file it first.`;
}

function describeBlock(failure: BlockFailure, shownPath: string, source: SourceText, small: boolean): string {
  switch (failure.kind) {
    case "no-match":
      return describeNoMatch(failure.block, failure.search, shownPath, source, small);
    case "ambiguous": {
      const more = failure.total > failure.candidates.length ? ` and ${failure.total - failure.candidates.length} more` : "";
      const places = `${formatSpans(failure.candidates)}${more}`;
      const around = failure.candidates
        .slice(0, SHOWN_CANDIDATES)
        .map((c) => numberedLines(source.lines, c.first - REGION_CONTEXT, Math.min(c.first + c.count, c.first + MAX_REGION_LINES) + REGION_CONTEXT))
        .join("\n…\n");
      return [
        `Block ${failure.block}: its SEARCH matches ${failure.total} places ${how(failure.strategy)} (${places}), so it is unclear which one to change. Add lines before or after it that differ between these places, so that it matches exactly one. Its SEARCH:`,
        fenced(quoteLines(failure.search)),
        `Around ${failure.candidates.length > SHOWN_CANDIDATES ? `the first ${SHOWN_CANDIDATES} places` : "each place"} (${NUMBERS_NOTE}):\n${around}`,
      ].join("\n");
    }
    case "overlap":
      return `Block ${failure.block} overlaps block ${failure.other}: block ${failure.block} matches ${formatSpans([failure.span])}, which shares text with block ${failure.other} (${formatSpans([failure.otherSpan])}). Blocks must not share lines: merge the two into one block, or make them cover separate lines.`;
    case "empty-search":
      if (failure.fileEmpty) {
        return `Block ${failure.block} also has an empty SEARCH, but only one block can fill an empty file. Put all the content in one block.`;
      }
      return `Block ${failure.block} has ${failure.search.length === 0 ? "an empty SEARCH" : "a SEARCH of only blank lines"}, but ${shownPath} is not empty (${plural(source.lines.length, "line")}). An empty SEARCH only fills an empty file. To insert lines, put the lines next to the insertion point in SEARCH and repeat them in REPLACE with the new lines added; to replace the whole file, use write_to_file.`;
  }
}

function describeNoMatch(block: number, search: readonly string[], shownPath: string, source: SourceText, small: boolean): string {
  const intro = [
    `Block ${block}: its SEARCH matches nothing in ${shownPath}, not even when ignoring whitespace and indentation${hasLineNumbers(search) ? ' or without the "N | " line numbers its lines start with (they are not part of the file)' : ""}. Its SEARCH:`,
    fenced(quoteLines(search)),
  ];
  const region = closestRegion(source.lines, search);
  if (region === undefined) {
    return [...intro, `${shownPath} is empty: use a block with an empty SEARCH to fill it, or write_to_file.`].join("\n");
  }
  const similar = `${Math.round(region.similarity * 100)}% similar`;
  const where = formatSpans([region]);
  if (small) return [...intro, `The closest region of the file is ${where} (${similar}); the whole file is shown below.`].join("\n");
  const from = region.first - REGION_CONTEXT;
  const to = Math.min(region.first + region.count, region.first + MAX_REGION_LINES) + REGION_CONTEXT;
  return [
    ...intro,
    `The closest region of the file is ${where} (${similar}); here it is with the lines around it (${NUMBERS_NOTE}):`,
    numberedLines(source.lines, from, to),
  ].join("\n");
}

function briefly(failure: BlockFailure): string {
  switch (failure.kind) {
    case "no-match":
      return `Block ${failure.block}: its SEARCH matches nothing in the file.`;
    case "ambiguous":
      return `Block ${failure.block}: its SEARCH matches ${failure.total} places (${formatSpans(failure.candidates)}).`;
    case "overlap":
      return `Block ${failure.block} overlaps block ${failure.other}.`;
    case "empty-search":
      return `Block ${failure.block} has an empty SEARCH.`;
  }
}

function how(strategy: Strategy): string {
  switch (strategy) {
    case "exact":
      return "exactly";
    case "trimmed":
      return "when ignoring leading/trailing whitespace";
    case "whitespace":
      return "when ignoring whitespace differences";
    case "fragment":
      return "as text within lines";
  }
}

function fenced(text: string): string {
  return `------- SEARCH\n${text}\n=======`;
}

