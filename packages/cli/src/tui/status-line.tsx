/** @jsxRuntime automatic */
import { Box, Text } from "ink";
import { useTheme } from "./theme.js";
import type { StatusState } from "./view-types.js";

export function compactNumber(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1)}M`;
}

/** Mode, model, context used, cost, checkpoints: one line, fitted to 80 columns. */
export function StatusLine({ status, width }: { status: StatusState; width: number }) {
  const theme = useTheme();
  const mode = status.mode.toUpperCase();
  const pending = status.pendingMode ? ` → ${status.pendingMode.toUpperCase()}` : "";
  const percent = status.contextWindow > 0 ? ` (${Math.round((status.contextTokens / status.contextWindow) * 100)}%)` : "";
  const estimated = status.contextEstimated ? "~" : "";
  const context = `${estimated}${compactNumber(status.contextTokens)}/${status.contextWindow > 0 ? compactNumber(status.contextWindow) : "?"} tokens${status.contextEstimated ? " (estimated)" : ""}${percent}`;
  const spent = status.costUsd === null ? "cost unknown" : `$${status.costUsd < 10 ? status.costUsd.toFixed(4) : status.costUsd.toFixed(2)}`;
  const cost = status.budgetUsd === undefined ? spent : `${spent} / $${status.budgetUsd.toFixed(2)}`;
  const checkpoints = `${status.checkpoints} checkpoint${status.checkpoints === 1 ? "" : "s"}`;
  const prefix = mode.length + pending.length + 2 + (status.yolo ? 5 : 0);
  // The percentage goes first when space is short, then the key hints.
  const full = ` ${status.model} · ${context} · ${cost} · ${checkpoints}`;
  const line = prefix + full.length <= width ? full : full.replace(percent, "");
  const hintKeys = "  shift+tab: plan/act · /help";
  const keys = prefix + line.length + hintKeys.length <= width ? hintKeys : "";
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text bold inverse color={theme.mode[status.mode]}>{` ${mode}${pending} `}</Text>
        {status.yolo ? <Text color={theme.warning}> YOLO</Text> : null}
        <Text dimColor>{`${line}${keys}`}</Text>
      </Text>
    </Box>
  );
}
