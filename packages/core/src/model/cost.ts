import type { Pricing, Usage } from "./types.js";

/** Cost in USD of one request, or null when the model's price is unknown. */
export function costOf(usage: Usage, pricing: Pricing | undefined): number | null {
  if (!pricing) return null;
  const perToken = (pricePerMillion: number) => pricePerMillion / 1_000_000;
  return (
    usage.inputTokens * perToken(pricing.input) +
    usage.outputTokens * perToken(pricing.output) +
    usage.cacheReadTokens * perToken(pricing.cacheRead ?? pricing.input) +
    usage.cacheWriteTokens * perToken(pricing.cacheWrite ?? pricing.input)
  );
}
