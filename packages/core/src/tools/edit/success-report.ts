import type { Change } from "./edit-session.js";
import { diffLines, type DiffOp } from "./line-diff.js";
import type { SourceText } from "./line-endings.js";
import { clipLine, formatSpans, plural } from "./text-format.js";

/** Unchanged lines shown around each change. */
const CONTEXT = 2;
const MAX_SNIPPET_LINES = 80;
const MAX_SNIPPET_CHARS = 8_000;

type Core = { oldStart: number; oldEnd: number; newStart: number; newEnd: number; ops: DiffOp[] };

/**
 * What the model reads after a successful edit: one summary line, and for blocks that only matched
 * leniently a note on each and the changed regions as a compact unified diff, so it knows what is on
 * disk now. When every block matched exactly, the file holds what the model wrote where the summary
 * says: the diff would only repeat its own SEARCH and REPLACE, in every later request of the task.
 */
export function describeSuccess(
  shownPath: string,
  source: SourceText,
  edited: { content: string; changes: readonly Change[]; blockCount: number },
): string {
  const newLines = lineReader(edited.content);
  const regions = mergeSharedLines(edited.changes);
  const cores = regions.flatMap((region) => coreOf(region, source.lines, newLines));
  const added = cores.reduce((n, c) => n + c.ops.filter((op) => op.type === "+").length, 0);
  const removed = cores.reduce((n, c) => n + c.ops.filter((op) => op.type === "-").length, 0);
  const kept = regions.filter((c) => c.new.count > 0).map((c) => c.new);
  const deletions = regions.length - kept.length;
  const where = [
    ...(kept.length > 0 ? [formatSpans(kept)] : []),
    ...(deletions > 0 ? [plural(deletions, "deletion")] : []),
  ];
  const lines = [`Edited ${shownPath}: ${plural(edited.blockCount, "block")}, ${where.join(", ")} (+${added} −${removed}).`];
  for (const change of edited.changes) {
    const note = leniencyNote(change);
    if (note !== undefined) lines.push(note);
  }
  if (lines.length === 1) return lines[0]!;
  const snippet = unifiedSnippet(cores, source.lines);
  if (snippet !== "") lines.push("", "The changes (unified diff):", snippet);
  return lines.join("\n");
}

function leniencyNote(change: Change): string | undefined {
  const base = strategyNote(change);
  if (!change.lineNumbersStripped) return base;
  const numbers = `Block ${change.block}'s lines started with read_file's line numbers ("12 | "); they were taken off its SEARCH and REPLACE lines before matching. Leave them out of SEARCH and REPLACE.`;
  return base === undefined ? numbers : `${numbers} ${base}`;
}

function strategyNote(change: Change): string | undefined {
  const dropped = change.blankEdgesDropped ? "dropping the blank lines at the start/end of its SEARCH" : undefined;
  if (change.strategy === "fragment") {
    return `Block ${change.block} matched part of a line rather than whole lines${dropped === undefined ? "" : `, after ${dropped}`}.`;
  }
  const ignoring =
    change.strategy === "trimmed"
      ? "ignoring leading/trailing whitespace"
      : change.strategy === "whitespace"
        ? "ignoring whitespace differences"
        : undefined;
  const how = [dropped, ignoring].filter((part) => part !== undefined);
  if (how.length === 0) return undefined;
  const reindented = change.reindented ? "; its REPLACE lines were re-indented to the file's indentation" : "";
  return `Block ${change.block} matched only when ${how.join(" and ")}${reindented}.`;
}

type Region = Pick<Change, "old" | "new">;

/** Blocks that edit the same line (fragments of it) are one region of the diff. */
function mergeSharedLines(changes: readonly Change[]): Region[] {
  const regions: Region[] = [];
  for (const { old, new: added } of changes) {
    const last = regions[regions.length - 1];
    if (last === undefined || old.first >= last.old.first + last.old.count) {
      regions.push({ old, new: added });
      continue;
    }
    const oldEnd = Math.max(last.old.first + last.old.count, old.first + old.count);
    const newEnd = Math.max(last.new.first + last.new.count, added.first + added.count);
    regions[regions.length - 1] = {
      old: { first: last.old.first, count: oldEnd - last.old.first },
      new: { first: last.new.first, count: newEnd - last.new.first },
    };
  }
  return regions;
}

/** The part of one region that really changed, without the SEARCH/REPLACE lines that are equal at its ends. */
function coreOf(change: Region, oldLines: readonly string[], newLines: LineReader): Core[] {
  const before = oldLines.slice(change.old.first, change.old.first + change.old.count);
  const after = newLines(change.new.first, change.new.first + change.new.count);
  const ops = diffLines(before, after);
  let head = 0;
  while (head < ops.length && ops[head]?.type === " ") head += 1;
  if (head === ops.length) return [];
  let tail = 0;
  while (ops[ops.length - 1 - tail]?.type === " ") tail += 1;
  const core = ops.slice(head, ops.length - tail);
  const oldCount = core.filter((op) => op.type !== "+").length;
  const newCount = core.filter((op) => op.type !== "-").length;
  const oldStart = change.old.first + head;
  const newStart = change.new.first + head;
  return [{ oldStart, oldEnd: oldStart + oldCount, newStart, newEnd: newStart + newCount, ops: core }];
}

/** Lines `first..end-1` of a text (without BOM and line terminators). */
type LineReader = (first: number, end: number) => string[];

/** Reads a few lines of a large text without splitting all of it into strings. */
function lineReader(content: string): LineReader {
  const text = content.startsWith("\uFEFF") ? content.slice(1) : content;
  const starts = [0];
  for (let nl = text.indexOf("\n"); nl !== -1 && nl + 1 < text.length; nl = text.indexOf("\n", nl + 1)) starts.push(nl + 1);
  const count = text === "" ? 0 : starts.length;
  return (first, end) => {
    const lines: string[] = [];
    for (let i = Math.max(first, 0); i < Math.min(end, count); i++) {
      const line = text.slice(starts[i] ?? 0, starts[i + 1] ?? text.length);
      lines.push(line.replace(/\r?\n$/, ""));
    }
    return lines;
  };
}

function unifiedSnippet(cores: readonly Core[], oldLines: readonly string[]): string {
  const hunks: Core[][] = [];
  for (const core of cores) {
    const last = hunks[hunks.length - 1];
    const previous = last?.[last.length - 1];
    if (last !== undefined && previous !== undefined && core.oldStart - previous.oldEnd <= 2 * CONTEXT) last.push(core);
    else hunks.push([core]);
  }

  const out: string[] = [];
  let chars = 0;
  let shownOps = 0;
  const totalOps = cores.reduce((n, c) => n + c.ops.filter((op) => op.type !== " ").length, 0);
  for (const hunk of hunks) {
    const first = hunk[0];
    const last = hunk[hunk.length - 1];
    if (first === undefined || last === undefined) continue;
    const lead = Math.min(CONTEXT, first.oldStart);
    const trail = Math.min(CONTEXT, oldLines.length - last.oldEnd);
    const body: string[] = [];
    const context = (from: number, to: number): void => {
      for (let i = from; i < to; i++) body.push(` ${clipLine(oldLines[i] ?? "")}`);
    };
    context(first.oldStart - lead, first.oldStart);
    hunk.forEach((core, k) => {
      const next = hunk[k + 1];
      for (const op of core.ops) body.push(`${op.type}${clipLine(op.text)}`);
      context(core.oldEnd, next === undefined ? core.oldEnd + trail : next.oldStart);
    });
    const oldCount = last.oldEnd + trail - (first.oldStart - lead);
    const newCount = last.newEnd + trail - (first.newStart - lead);
    const header = `@@ -${range(first.oldStart - lead, oldCount)} +${range(first.newStart - lead, newCount)} @@`;
    out.push(header);
    chars += header.length + 1;
    for (const line of body) {
      if (out.length >= MAX_SNIPPET_LINES || chars + line.length + 1 > MAX_SNIPPET_CHARS) {
        out.push(`[… the diff is cut here: ${totalOps - shownOps} more changed lines are not shown; read_file the changed lines to see them.]`);
        return out.join("\n");
      }
      out.push(line);
      chars += line.length + 1;
      if (line[0] !== " ") shownOps += 1;
    }
  }
  return out.join("\n");
}

/** A unified-diff range: 1-based start and count (start is the line before when the count is 0). */
function range(start: number, count: number): string {
  return `${count === 0 ? start : start + 1},${count}`;
}
