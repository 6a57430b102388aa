/** @jsxRuntime automatic */
import { Box, Text } from "ink";
import { useEffect, useState } from "react";
import { liveBudget } from "./layout.js";
import { markdownLines } from "./markdown-terminal.js";
import { symbols, useTheme } from "./theme.js";
import { ToolCardView } from "./tool-card.js";
import { busyElapsedMs, type Busy, type LiveState } from "./view-types.js";

const MAX_LIVE_CARDS = 3;

function Elapsed({ busy }: { busy: Busy }) {
  const [now, setNow] = useState(Date.now());
  const paused = busy.pausedAt !== undefined;
  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [paused]);
  const at = paused ? busy.pausedAt! : Math.max(now, Date.now());
  return <>{`${Math.floor(busyElapsedMs(busy, at) / 1000)}s${paused ? " (paused while you decide)" : ""}`}</>;
}

/** The last `rows` of lines already wrapped to the width, and how many were left out above. */
function tailLines(lines: string[], rows: number): { text: string; hiddenLines: number } | undefined {
  const shown = lines.slice(-rows);
  return shown.length === 0 ? undefined : { text: shown.join("\n"), hiddenLines: lines.length - shown.length };
}

function size(chars: number): string {
  return chars < 1024 ? `${chars} chars` : `${(chars / 1024).toFixed(1)} KB`;
}

/**
 * What is still happening: the end of the reply as it streams, running tool cards with the end
 * of their output, and a busy line. Every part has a row budget, so the region stays shorter than
 * the terminal and ink never falls back to clearing the screen and reprinting the history.
 */
export function LiveRegion({ live, width, maxRows, maxTextRows, expanded }: { live: LiveState; width: number; maxRows: number; maxTextRows: number; expanded: boolean }) {
  const theme = useTheme();
  // A call awaiting approval is shown by the prompt itself.
  const running = live.tools.filter((card) => card.status !== "awaiting_approval");
  const cards = running.slice(-MAX_LIVE_CARDS);
  const hiddenCards = running.length - cards.length;
  const budget = liveBudget({ ...live, tools: running }, cards, maxRows, maxTextRows, expanded ? 15 : 5);
  const text = live.text === "" || budget.textRows === 0 ? undefined : tailLines(markdownLines(live.text, { width: Math.max(10, width - 2), colour: theme.accent !== undefined, fence: live.fence }), budget.textRows);
  const outputLines = budget.outputLines;
  return (
    <Box flexDirection="column">
      {live.reasoning !== "" ? <Text dimColor>{`${symbols.reasoning} thinking… (${live.reasoningWords} words)`}</Text> : null}
      {text ? (
        <Box flexDirection="column">
          {text.hiddenLines > 0 && !live.committed ? <Text dimColor>{`… ${text.hiddenLines} lines above`}</Text> : null}
          <Text>{text.text}</Text>
        </Box>
      ) : null}
      {hiddenCards > 0 ? <Text dimColor>{`… ${hiddenCards} more calls running`}</Text> : null}
      {cards.map((card) => (
        <ToolCardView key={card.id} card={card} size={{ diffLines: 0, outputLines, width }} />
      ))}
      {live.streamingCall ? <Text color={theme.accent} wrap="truncate-end">{`${symbols.tool} ${live.streamingCall.name} (${size(live.streamingCall.chars)} so far${live.streamingCall.note ? `; ${live.streamingCall.note}` : ""})`}</Text> : null}
      {live.busy ? (
        <Text dimColor wrap="truncate-end">
          {live.stopping ? "stopping… " : `${symbols.running} ${live.busy.label} `}
          <Elapsed busy={live.busy} />
          {live.stopping ? "" : " · esc to stop"}
        </Text>
      ) : null}
    </Box>
  );
}
