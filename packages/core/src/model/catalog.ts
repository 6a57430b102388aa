import type { ModelInfo, ProviderId } from "./types.js";

/**
 * Context windows and list prices (USD per million tokens) of models people commonly pick, each
 * under its exact id. Names that extend another model's are other models (gpt-4o-mini is not
 * gpt-4o, gpt-5-nano is not gpt-5), so a model is found only by its own id; an unknown one gets a
 * conservative window and no price (cost is then reported as null), never a neighbour's price.
 * Other models are described under `models` in settings.json, or by their endpoint (discover.ts).
 */
const anthropic = (contextWindow: number, maxOutputTokens: number, input: number, output: number): ModelInfo => ({
  contextWindow,
  maxOutputTokens,
  supportsImages: true,
  // Anthropic bills a cache read at a tenth of input and a (five-minute) cache write at 1.25 times.
  pricing: { input, output, cacheRead: input / 10, cacheWrite: input * 1.25 },
});
const openai = (contextWindow: number, maxOutputTokens: number, input: number, output: number, cacheRead: number, supportsImages = true): ModelInfo => ({
  contextWindow,
  maxOutputTokens,
  supportsImages,
  pricing: { input, output, cacheRead },
});

const known: Record<string, ModelInfo> = {
  "claude-opus-4-5": anthropic(200_000, 32_000, 5, 25),
  "claude-opus-4-1": anthropic(200_000, 32_000, 15, 75),
  "claude-opus-4": anthropic(200_000, 32_000, 15, 75),
  "claude-sonnet-4-6": anthropic(200_000, 64_000, 3, 15),
  "claude-sonnet-4-5": anthropic(200_000, 64_000, 3, 15),
  "claude-sonnet-4": anthropic(200_000, 64_000, 3, 15),
  "claude-3-7-sonnet": anthropic(200_000, 64_000, 3, 15),
  "claude-haiku-4-5": anthropic(200_000, 64_000, 1, 5),
  "claude-3-5-haiku": anthropic(200_000, 8_192, 0.8, 4),
  "gpt-5": openai(400_000, 128_000, 1.25, 10, 0.125),
  "gpt-5-mini": openai(400_000, 128_000, 0.25, 2, 0.025),
  "gpt-5-nano": openai(400_000, 128_000, 0.05, 0.4, 0.005),
  "gpt-4.1": openai(1_047_576, 32_768, 2, 8, 0.5),
  "gpt-4.1-mini": openai(1_047_576, 32_768, 0.4, 1.6, 0.1),
  "gpt-4.1-nano": openai(1_047_576, 32_768, 0.1, 0.4, 0.025),
  "gpt-4o": openai(128_000, 16_384, 2.5, 10, 1.25),
  "gpt-4o-mini": openai(128_000, 16_384, 0.15, 0.6, 0.075),
  o3: openai(200_000, 100_000, 2, 8, 0.5),
  "o4-mini": openai(200_000, 100_000, 1.1, 4.4, 0.275),
  "deepseek-chat": openai(128_000, 8_192, 0.28, 0.42, 0.028, false),
  "deepseek-reasoner": openai(128_000, 64_000, 0.28, 0.42, 0.028, false),
};

/** Which catalog ids each provider serves under its own name (OpenRouter's are spelled differently, and local servers serve what was pulled). */
const families: Partial<Record<ProviderId, string>> = { anthropic: "claude-", openai: "gpt-", deepseek: "deepseek-" };

/** The ids the catalog knows that the provider serves, for hosts that offer a choice of model. */
export function catalogModelIds(provider: ProviderId): string[] {
  const family = families[provider];
  return family ? Object.keys(known).filter((id) => id.startsWith(family)) : [];
}

const fallbackInfo: ModelInfo = { contextWindow: 128_000, maxOutputTokens: 8_192, supportsImages: false };

/**
 * The names one model goes by: the id without a gateway's vendor prefix ("anthropic/claude-sonnet-4-5"
 * on OpenRouter), without a release date ("claude-sonnet-4-5-20250929", "gpt-4o-mini-2024-07-18"),
 * and with a dotted version written with a dash ("claude-sonnet-4.5"). A variant after a colon
 * (OpenRouter's ":free") is a different offer and keeps its colon, so it is not found.
 */
function namesOf(id: string): string[] {
  const bare = id.includes("/") ? id.slice(id.lastIndexOf("/") + 1) : id;
  const undated = (name: string) => name.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, "");
  const dashed = bare.replace(/(\d)\.(\d)/g, "$1-$2");
  return [bare, undated(bare), dashed, undated(dashed)];
}

function knownInfo(id: string): ModelInfo | undefined {
  for (const name of namesOf(id)) {
    const info = known[name];
    if (info) return info;
  }
  return undefined;
}

/** Whether the built-in list describes the model (else its info is a guess: see capabilities.ts). */
export const isKnownModel = (id: string): boolean => knownInfo(id) !== undefined;

/**
 * Looks a model up by its exact id (under the names in `namesOf`); an unknown model has no price
 * and takes no images until settings or its endpoint say otherwise (capabilities.ts).
 */
export function modelInfo(id: string, _provider?: ProviderId): ModelInfo {
  return knownInfo(id) ?? fallbackInfo;
}
