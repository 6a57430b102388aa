import { truncate } from "./text-rows.js";
import type { ToolCard } from "./view-types.js";

/** A call that ended without running as asked, and why, from its record: shown on its own line under the card. */
export function stoppedReason(card: ToolCard): string | undefined {
  if (card.status === "failed") return truncate((card.result ?? "").replace(/^Command: .*\n/, ""), 100);
  if (card.status === "denied") {
    const decision = card.decision;
    if (!decision) return "denied";
    return decision.by === "user" ? "denied by you" : truncate(decision.reason, 100);
  }
  if (card.status === "cancelled") return truncate(card.result || "cancelled", 100);
  return undefined;
}

/** What the person said with their answer, shown under the card. */
export const feedbackOf = (card: ToolCard): string | undefined => card.decision?.feedback;
