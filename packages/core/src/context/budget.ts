import type { ModelInfo } from "../model/types.js";

/**
 * How many tokens a request may hold: the window minus a reserve for the reply. The reserve is
 * the model's output limit, but never more than a quarter of the window, so small local models
 * keep most of theirs for context.
 */
export function inputBudget(info: Pick<ModelInfo, "contextWindow" | "maxOutputTokens">): number {
  const reserve = Math.min(info.maxOutputTokens, Math.floor(info.contextWindow / 4));
  return info.contextWindow - reserve;
}
