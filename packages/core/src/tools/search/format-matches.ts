import type { FileMatches, SearchLine } from "./collect-matches.js";

const SEPARATOR = "│----";

export type FormattedMatches = { text: string; shownMatches: number; shownFiles: number };

export type FormatOptions = {
  /** How the model sees a path (relative to the workspace). */
  display(absolute: string): string;
  /** Context lines kept on each side of a match; others (collected past the cap) are dropped. */
  context: number;
  /** The blocks stop before the text passes this many characters. */
  maxChars: number;
};

/**
 * Results grouped by file, files sorted by path, each run of adjacent lines in a box:
 *
 *     src/a.ts
 *     │----
 *     │ 9  | before
 *     │10 >| the match
 *     │11  | after
 *     │----
 *
 * `>` marks the matching lines; the others are context. Stops at whole groups once `maxChars` is reached.
 */
export function formatMatches(files: readonly FileMatches[], options: FormatOptions): FormattedMatches {
  const sorted = files
    .map((file) => ({ shown: options.display(file.absolute), lines: withNearbyContext(file.lines, options.context) }))
    .filter((file) => file.lines.some((line) => line.isMatch))
    .sort((a, b) => comparePaths(a.shown, b.shown));

  const blocks: string[] = [];
  let used = 0;
  let shownMatches = 0;
  let shownFiles = 0;
  for (const file of sorted) {
    const width = String(file.lines.at(-1)?.number ?? 0).length;
    const rendered = [file.shown, SEPARATOR];
    let size = file.shown.length + SEPARATOR.length + 2;
    let fileMatches = 0;
    let complete = true;
    for (const group of adjacentGroups(file.lines)) {
      const lines = group.map((line) => `│${String(line.number).padStart(width)} ${line.isMatch ? ">" : " "}| ${line.text}`);
      const groupSize = lines.reduce((sum, line) => sum + line.length + 1, SEPARATOR.length + 1);
      if (used + size + groupSize > options.maxChars && shownMatches + fileMatches > 0) {
        complete = false;
        break;
      }
      rendered.push(...lines, SEPARATOR);
      size += groupSize;
      fileMatches += group.filter((line) => line.isMatch).length;
    }
    if (fileMatches > 0) {
      blocks.push(rendered.join("\n"));
      used += size + 1;
      shownMatches += fileMatches;
      shownFiles += 1;
    }
    if (!complete) break;
  }
  return { text: blocks.join("\n\n"), shownMatches, shownFiles };
}

/** Drops context lines farther than `context` from every match (rg's context for matches that were not kept). */
function withNearbyContext(lines: readonly SearchLine[], context: number): SearchLine[] {
  const matchNumbers = lines.filter((line) => line.isMatch).map((line) => line.number);
  return lines.filter(
    (line) => line.isMatch || matchNumbers.some((number) => Math.abs(number - line.number) <= context),
  );
}

function adjacentGroups(lines: readonly SearchLine[]): SearchLine[][] {
  const groups: SearchLine[][] = [];
  let group: SearchLine[] = [];
  for (const line of lines) {
    const previous = group.at(-1);
    if (previous !== undefined && line.number !== previous.number + 1) {
      groups.push(group);
      group = [];
    }
    group.push(line);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Case-insensitive, then by code unit: the same order on every machine, as list_files uses. */
function comparePaths(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
