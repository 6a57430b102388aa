import type { Pricing, Usage } from "./types.js";

/** Cost in USD of one request: what the provider reported, else by the model's price, or null when neither is known. */
export function costOf(usage: Usage, pricing: Pricing | undefined): number | null {
  if (usage.reportedCostUsd !== undefined) return usage.reportedCostUsd;
  if (!pricing) return null;
  const perToken = (pricePerMillion: number) => pricePerMillion / 1_000_000;
  return (
    usage.inputTokens * perToken(pricing.input) +
    usage.outputTokens * perToken(pricing.output) +
    usage.cacheReadTokens * perToken(pricing.cacheRead ?? pricing.input) +
    usage.cacheWriteTokens * perToken(pricing.cacheWrite ?? pricing.input)
  );
}
