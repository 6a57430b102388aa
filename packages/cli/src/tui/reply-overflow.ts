import { safeCuts } from "@cairn/host/markdown/markdown-core";
import { overflowLines } from "./text-rows.js";

export type ReplyCut = {
  /** Lines that may move to the history now ("" when none). */
  done: string;
  /** What stays live. */
  rest: string;
  /** The code block's opening line when the cut is inside one: `rest` continues it. */
  fence: string | undefined;
};

/**
 * Like overflowLines, for a reply shown as markdown: whole lines beyond the last `keepRows` rows
 * move to the history, but only at a point where both sides still read as the same markdown (a
 * block boundary, or a line inside a code block), so a table, a paragraph or a quote is never
 * split between the scrollback and the live region. `fence` is the code block open at the start
 * of `text` (from the previous cut).
 */
export function replyOverflow(text: string, width: number, keepRows: number, fence: string | undefined): ReplyCut {
  const { done } = overflowLines(text, width, keepRows);
  if (done === "") return { done: "", rest: text, fence };
  const lines = text.split("\n");
  const most = done.split("\n").length;
  const cuts = safeCuts(lines, fence);
  for (let at = most; at > 0; at--) {
    if (!cuts.has(at)) continue;
    const inFence = cuts.get(at);
    // Inside a code block only before a complete line: the last one may yet close the block.
    if (inFence !== undefined && at >= lines.length - 1) continue;
    return { done: lines.slice(0, at).join("\n"), rest: lines.slice(at).join("\n"), fence: inFence };
  }
  return { done: "", rest: text, fence };
}
