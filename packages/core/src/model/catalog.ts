import type { ModelInfo, ProviderId } from "./types.js";

/**
 * Context windows and list prices (USD per million tokens) of models people commonly pick.
 * Unknown models get a conservative default and no price (cost is then reported as null).
 */
const known: Record<string, ModelInfo> = {
  "claude-opus-4-5": { contextWindow: 200_000, maxOutputTokens: 32_000, supportsImages: true, pricing: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 } },
  "claude-opus-4-1": { contextWindow: 200_000, maxOutputTokens: 32_000, supportsImages: true, pricing: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } },
  "claude-sonnet-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000, supportsImages: true, pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  "claude-sonnet-4": { contextWindow: 200_000, maxOutputTokens: 64_000, supportsImages: true, pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  "claude-haiku-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000, supportsImages: true, pricing: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 } },
  "gpt-5": { contextWindow: 400_000, maxOutputTokens: 128_000, supportsImages: true, pricing: { input: 1.25, output: 10, cacheRead: 0.125 } },
  "gpt-5-mini": { contextWindow: 400_000, maxOutputTokens: 128_000, supportsImages: true, pricing: { input: 0.25, output: 2, cacheRead: 0.025 } },
  "gpt-4.1": { contextWindow: 1_047_576, maxOutputTokens: 32_768, supportsImages: true, pricing: { input: 2, output: 8, cacheRead: 0.5 } },
  "gpt-4.1-mini": { contextWindow: 1_047_576, maxOutputTokens: 32_768, supportsImages: true, pricing: { input: 0.4, output: 1.6, cacheRead: 0.1 } },
  "gpt-4o": { contextWindow: 128_000, maxOutputTokens: 16_384, supportsImages: true, pricing: { input: 2.5, output: 10, cacheRead: 1.25 } },
  "deepseek-chat": { contextWindow: 128_000, maxOutputTokens: 8_192, supportsImages: false, pricing: { input: 0.28, output: 0.42, cacheRead: 0.028 } },
  "deepseek-reasoner": { contextWindow: 128_000, maxOutputTokens: 64_000, supportsImages: false, pricing: { input: 0.28, output: 0.42, cacheRead: 0.028 } },
};

/** The ids the catalog knows, for hosts that offer a choice of model. */
export const catalogModelIds: readonly string[] = Object.keys(known);

const fallbackInfo: ModelInfo = { contextWindow: 128_000, maxOutputTokens: 8_192, supportsImages: false };

/** Looks a model up by id, also under a provider prefix ("anthropic/claude-sonnet-4-5" on OpenRouter) or a dated suffix. */
export function modelInfo(id: string, _provider?: ProviderId): ModelInfo {
  const bare = id.includes("/") ? id.slice(id.lastIndexOf("/") + 1) : id;
  const exact = known[bare];
  if (exact) return exact;
  const prefix = Object.keys(known)
    .filter((k) => bare.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  return prefix ? known[prefix]! : fallbackInfo;
}
