/**
 * A stored task's status in the words every host shows (cairn history and show, the TUI's pick
 * list, the web page): one vocabulary, so "stopped" means the same everywhere. Browser-safe.
 */
export type TaskStatus = "running" | "interrupted" | "completed" | "needs_input" | "failed" | "aborted";

const words: Record<TaskStatus, string> = {
  running: "running",
  interrupted: "interrupted",
  completed: "completed",
  needs_input: "needs input",
  failed: "failed",
  aborted: "stopped",
};

/** `status` as shownStatus gives it (a dead process's "running" task is "interrupted"), in words. */
export function statusWord(status: TaskStatus): string {
  return words[status] ?? status;
}

/** What a task cost: dollars when its price is known, otherwise the tokens it used; "" when it used none. */
export function costText(entry: { totalCostUsd: number | null; tokens?: number }): string {
  if (entry.totalCostUsd !== null && entry.totalCostUsd > 0) return `$${entry.totalCostUsd < 0.01 ? entry.totalCostUsd.toFixed(4) : entry.totalCostUsd.toFixed(2)}`;
  if (entry.totalCostUsd === 0 && !entry.tokens) return "$0";
  if (!entry.tokens) return "";
  return `${entry.tokens < 1000 ? entry.tokens : entry.tokens < 1_000_000 ? `${(entry.tokens / 1000).toFixed(1)}k` : `${(entry.tokens / 1_000_000).toFixed(1)}M`} tokens`;
}
