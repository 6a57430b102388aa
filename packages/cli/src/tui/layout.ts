import { cursorPosition, type EditorState } from "./input-editor.js";
import { approvalTitleRows } from "./approval-title.js";
import { rowsOf } from "./text-rows.js";
import { feedbackOf, stoppedReason } from "./card-notes.js";
import type { LiveState, Prompt, ToolCard } from "./view-types.js";

/**
 * Row budgets. Everything below the printed history is redrawn on each frame, and ink falls back
 * to clearing the screen and reprinting the whole history when that part is as tall as the
 * terminal (the flicker of claude-code#769 / #9874). So the parts under the live region (prompt,
 * input, status) are counted, and the live region gets only what is left.
 */

/** Lines the input shows at most: fewer on short terminals. */
export function inputMaxLines(rows: number): number {
  return Math.max(2, Math.min(8, Math.floor(rows / 4)));
}

/** Rows the input box takes: its border, the visible lines (wrapped), the "more lines" markers, the completion list. */
export function inputRows(state: EditorState, width: number, maxLines: number, menuItems: number): number {
  const { lines, line } = cursorPosition(state);
  const first = Math.max(0, Math.min(line - maxLines + 1, lines.length - maxLines));
  const visible = lines.slice(first, first + maxLines);
  const text = visible.reduce((sum, l) => sum + rowsOf(`  ${l}`, width - 4), 0);
  const markers = (first > 0 ? 1 : 0) + (first + maxLines < lines.length ? 1 : 0);
  return 2 + text + markers + (menuItems > 0 ? menuItems + 1 : 0);
}

/** Rows a prompt takes (an estimate on the high side). */
export function promptRows(prompt: Prompt | undefined, width: number): number {
  if (!prompt) return 0;
  const inner = width - 4;
  switch (prompt.kind) {
    case "approval":
      return 2 + approvalTitleRows(prompt.request, inner) + (prompt.request.protected ? 1 : 0) + 5;
    case "question":
      return 2 + rowsOf(`? ${prompt.question}`, inner) + prompt.options.length + 1;
    case "plan":
      return 2 + 1 + 3;
    case "confirm":
      return 2 + 1 + rowsOf(prompt.detail, inner) + 2;
    case "choice":
      return 1 + Math.min(8, prompt.options.length) + 2 + 1;
    case "handoff":
      return 2 + 1 + 3;
    case "settings":
      // Frame and title, the rows (scrolled on short terminals), a text field, what runs, a problem, the footer.
      return 2 + 1 + prompt.source.rows().length + 2 + 2 + 1 + 3 + 2;
  }
}

/** Rows of a live card other than its output. */
function cardFrame(card: ToolCard): number {
  return 1 + (stoppedReason(card) !== undefined ? 1 : 0) + (feedbackOf(card) ? 1 : 0);
}

export type LiveBudget = { textRows: number; outputLines: number };

/**
 * Splits the rows the live region may use: single lines first (reasoning, the call streaming in,
 * busy), then the cards' frames, then their output (at most `wantOutput` lines each, keeping a
 * few rows for the reply), then the reply gets the rest, at most `maxTextRows`.
 */
export function liveBudget(live: LiveState, cards: ToolCard[], maxRows: number, maxTextRows: number, wantOutput: number): LiveBudget {
  let left = maxRows;
  left -= (live.reasoning !== "" ? 1 : 0) + (live.streamingCall ? 1 : 0) + (live.busy ? 1 : 0) + (live.tools.length > cards.length ? 1 : 0);
  for (const card of cards) left -= cardFrame(card);
  const commands = cards.filter((c) => c.kind === "command" && c.output !== "").length;
  const keepForText = live.text === "" ? 0 : Math.min(3, maxTextRows);
  // Each output also has a "lines above" marker row.
  const outputLines = commands === 0 ? wantOutput : Math.max(0, Math.min(wantOutput, Math.floor((left - keepForText) / commands) - 1));
  if (commands > 0) left -= commands * (outputLines + 1);
  const textRows = Math.max(0, Math.min(maxTextRows, left - (live.text !== "" && live.committed ? 0 : 1)));
  return { textRows, outputLines };
}
