import type { ModelFacts } from "./capabilities.js";
import { fetchJson, isRecord, tokens } from "./discover-fetch.js";
import type { Pricing } from "./types.js";

/** OpenRouter's prices are US dollars per token, as text ("0.000003"); Cairn's are per million. */
function perMillion(value: unknown): number | undefined {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : typeof value === "number" ? value : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1e6 * 1e6) / 1e6 : undefined;
}

function pricingOf(pricing: unknown): Pricing | undefined {
  if (!isRecord(pricing)) return undefined;
  const input = perMillion(pricing.prompt);
  const output = perMillion(pricing.completion);
  // A router model (openrouter/auto) prices as "-1": unknown, not free.
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = perMillion(pricing.input_cache_read);
  const cacheWrite = perMillion(pricing.input_cache_write);
  return { input, output, ...(cacheRead !== undefined ? { cacheRead } : {}), ...(cacheWrite !== undefined ? { cacheWrite } : {}) };
}

/**
 * What OpenRouter lists of its models (`GET /api/v1/models`): context length (the top provider's
 * where it says), most output tokens, input modalities ("image"), supported parameters ("tools",
 * "reasoning") and prices.
 */
export function openrouterFacts(list: unknown): Record<string, ModelFacts> {
  const found: Record<string, ModelFacts> = {};
  const data = isRecord(list) && Array.isArray(list.data) ? list.data : [];
  for (const model of data) {
    if (!isRecord(model) || typeof model.id !== "string") continue;
    const facts: ModelFacts = {};
    const top = isRecord(model.top_provider) ? model.top_provider : {};
    const window = tokens(top.context_length) ?? tokens(model.context_length);
    if (window) facts.contextWindow = window;
    const output = tokens(top.max_completion_tokens);
    if (output) facts.maxOutputTokens = output;
    const architecture = isRecord(model.architecture) ? model.architecture : {};
    if (Array.isArray(architecture.input_modalities)) facts.supportsImages = architecture.input_modalities.includes("image");
    if (Array.isArray(model.supported_parameters)) {
      facts.nativeTools = model.supported_parameters.includes("tools");
      facts.reasoning = model.supported_parameters.includes("reasoning");
    }
    const pricing = pricingOf(model.pricing);
    if (pricing) facts.pricing = pricing;
    found[model.id] = facts;
  }
  return found;
}

export async function discoverOpenrouter(baseUrl: string, _ids: readonly string[], timeoutMs: number): Promise<Record<string, ModelFacts | undefined>> {
  return openrouterFacts(await fetchJson(`${baseUrl.replace(/\/+$/, "")}/models`, { timeoutMs }));
}
