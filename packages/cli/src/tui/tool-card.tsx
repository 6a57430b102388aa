/** @jsxRuntime automatic */
import { Box, Text } from "ink";
import { feedbackOf, stoppedReason } from "./card-notes.js";
import { DiffLines } from "./diff-view.js";
import { diffCounts } from "./edit-diff.js";
import { truncate } from "./text-rows.js";
import { symbols, useTheme, type Theme } from "./theme.js";
import type { ToolCard } from "./view-types.js";

/** How much of a card to show: finished cards in the history, or the live one. */
export type CardSize = { diffLines: number; outputLines: number; width: number };

export const historyCardSize = (width: number): CardSize => ({ diffLines: 40, outputLines: 5, width });

function marker(card: ToolCard, theme: Theme): { symbol: string; color: string | undefined } {
  switch (card.status) {
    case "completed":
      return { symbol: symbols.done, color: theme.success };
    case "failed":
      return { symbol: symbols.failed, color: theme.error };
    case "denied":
    case "cancelled":
      return { symbol: symbols.denied, color: theme.warning };
    case "awaiting_approval":
      return { symbol: "?", color: theme.warning };
    default:
      return { symbol: symbols.tool, color: theme.accent };
  }
}

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

const firstLine = (text: string) => text.split("\n")[0] ?? "";

/** A short fact about the result, shown after the summary: "42 lines", "exit 0". */
function resultNote(card: ToolCard): string {
  const result = card.result ?? "";
  if (card.status !== "completed") return "";
  if (card.kind === "command") {
    const exit = /^Exit code: (\S+)/m.exec(result);
    if (exit) return `exit ${exit[1]}`;
    if (/Still running in the background/.test(result)) return "still running in the background";
    return "";
  }
  // An edit shown with its diff says its counts; one without a change to show says what the tool reported.
  if (card.kind === "edit") return card.edit && card.edit.lines.length > 0 ? "" : truncate(firstLine(result).replace(/\.$/, ""), 80);
  if (card.kind === "read") {
    const n = lineCount(result);
    return n === 1 ? truncate(result, 80) : `${n} lines`;
  }
  return truncate(result, 80);
}

function editNote(card: ToolCard): string {
  return card.edit && card.edit.lines.length > 0 ? diffCounts(card.edit) : "";
}

function OutputTail({ card, maxLines }: { card: ToolCard; maxLines: number }) {
  if (card.output === "" || maxLines <= 0) return null;
  // One row per line (long lines are cut, not wrapped), so the row budget holds.
  const lines = card.output.replace(/\n$/, "").split("\n");
  const shown = lines.slice(-maxLines);
  const hidden = Math.max(card.outputLines, lines.length) - shown.length;
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {hidden > 0 ? <Text dimColor>{`… ${hidden} line${hidden === 1 ? "" : "s"} above (ctrl-o shows all)`}</Text> : null}
      {shown.map((line, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          {line === "" ? " " : line}
        </Text>
      ))}
    </Box>
  );
}

/** The errors an edit introduced, one row each ("src/a.ts:3:7 TS2345 message"), in the error colour; the rest counted. */
function ProblemLines({ card }: { card: ToolCard }) {
  const theme = useTheme();
  const problems = card.problems ?? [];
  if (problems.length === 0) return null;
  const count = card.problemCount ?? problems.length;
  const more = count - problems.length;
  return (
    <Box flexDirection="column" paddingLeft={2}>
      <Text color={theme.error}>{`${count} new problem${count === 1 ? "" : "s"}:`}</Text>
      {problems.map((p, i) => (
        <Text key={i} color={theme.error} wrap="truncate-end">
          {`  ${p.path}:${p.line}:${p.column}${p.code === undefined ? "" : ` ${p.code}`} ${p.message}`}
        </Text>
      ))}
      {more > 0 ? <Text dimColor>{`  … ${more} more`}</Text> : null}
    </Box>
  );
}

/**
 * One tool call. Reads, listings and searches are one line; edits add their coloured diff (unless
 * it was shown in full above the approval prompt); commands show the end of their output.
 */
export function ToolCardView({ card, size }: { card: ToolCard; size: CardSize }) {
  const theme = useTheme();
  const { symbol, color } = marker(card, theme);
  const note = card.kind === "edit" ? editNote(card) : "";
  const result = resultNote(card);
  const stopped = stoppedReason(card);
  const feedback = feedbackOf(card);
  const approved = card.decision?.approved && card.decision.by === "rule" ? "always allowed" : "";
  const showDiff = card.kind === "edit" && card.edit && card.edit.lines.length > 0 && !card.shownForApproval && card.status === "completed";
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text color={color}>{symbol} </Text>
        <Text bold={card.status === "running" || card.status === "awaiting_approval"}>{card.summary}</Text>
        {note ? <Text dimColor> {note}</Text> : null}
        {result ? <Text dimColor> · {result}</Text> : null}
        {approved ? <Text dimColor> · {approved}</Text> : null}
      </Text>
      {stopped !== undefined ? (
        <Box paddingLeft={2}>
          <Text color={card.status === "failed" ? theme.error : theme.warning} wrap="truncate-end">
            {stopped}
          </Text>
        </Box>
      ) : null}
      {feedback ? (
        <Box paddingLeft={2}>
          <Text wrap="wrap">
            <Text dimColor>you said: </Text>
            {feedback}
          </Text>
        </Box>
      ) : null}
      {showDiff ? <DiffLines lines={card.edit!.lines} maxLines={size.diffLines} /> : null}
      {card.kind === "command" ? <OutputTail card={card} maxLines={size.outputLines} /> : null}
      <ProblemLines card={card} />
    </Box>
  );
}

/** The full change an edit would make, printed before the person is asked to approve it. */
export function ProposalView({ card }: { card: ToolCard }) {
  const theme = useTheme();
  const edit = card.edit!;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>
        <Text color={theme.warning}>? </Text>
        <Text bold>{`Proposed ${edit.created ? "new file" : "change to"} ${edit.path}`}</Text>
        <Text dimColor> {diffCounts(edit)}</Text>
      </Text>
      {edit.lines.length > 0 ? <DiffLines lines={edit.lines} maxLines={400} wrap /> : null}
    </Box>
  );
}
