import { isKnownModel, modelInfo } from "./catalog.js";
import type { ModelInfo, ProviderId } from "./types.js";

/** What some source says about a model: any of ModelInfo's fields. */
export type ModelFacts = Partial<ModelInfo>;

/** Where a capability came from, lowest first: a guess for an unknown model, the built-in list, the endpoint, settings.json. */
export type CapabilitySource = "default" | "built-in" | "discovered" | "settings";

export type LayeredModelInfo = { info: ModelInfo; sources: Record<keyof ModelInfo, CapabilitySource> };

const fields: ReadonlyArray<keyof ModelInfo> = ["contextWindow", "maxOutputTokens", "pricing", "supportsImages", "nativeTools", "reasoning"];

/**
 * A model's capabilities, each from the highest source that states it: settings.json (`models`)
 * beats what the endpoint said (discover.ts), which beats the built-in list, which beats the
 * conservative guess for a model nobody describes. A price is the exception: the endpoint's only
 * where the built-in list has none.
 */
export function layeredModelInfo(id: string, provider: ProviderId | undefined, layers: { discovered?: ModelFacts; settings?: ModelFacts }): LayeredModelInfo {
  const base = modelInfo(id, provider);
  const info: ModelInfo = { ...base };
  const baseSource: CapabilitySource = isKnownModel(id) ? "built-in" : "default";
  const sources = Object.fromEntries(fields.map((f) => [f, baseSource])) as Record<keyof ModelInfo, CapabilitySource>;
  for (const [source, facts] of [
    ["discovered", layers.discovered],
    ["settings", layers.settings],
  ] as const) {
    for (const field of fields) {
      if (facts?.[field] === undefined) continue;
      // An endpoint's price never replaces the one Cairn knows: --max-budget-usd counts by it, and an
      // endpoint that called a priced model free would hold the person's budget off. It fills a gap.
      if (source === "discovered" && field === "pricing" && base.pricing) continue;
      (info as Record<string, unknown>)[field] = facts[field];
      sources[field] = source;
    }
  }
  // What nobody states (a price, tool calls, reasoning) is the provider's default, whoever described the rest.
  for (const field of fields) if (info[field] === undefined) sources[field] = "default";
  return { info, sources };
}

/** A model's entry under `models` in settings.json (storage/settings.ts checks it). */
export type ModelSettings = {
  images?: boolean;
  contextWindow?: number;
  maxOutput?: number;
  maxOutputTokens?: number;
  nativeTools?: boolean;
  reasoning?: boolean | "low" | "medium" | "high";
  pricing?: ModelInfo["pricing"];
};

/** The facts a settings entry states, in ModelInfo's words. */
export function factsFromSettings(entry: ModelSettings | undefined): ModelFacts | undefined {
  if (!entry) return undefined;
  const facts: ModelFacts = {};
  if (entry.images !== undefined) facts.supportsImages = entry.images;
  if (entry.contextWindow !== undefined) facts.contextWindow = entry.contextWindow;
  const maxOutput = entry.maxOutput ?? entry.maxOutputTokens;
  if (maxOutput !== undefined) facts.maxOutputTokens = maxOutput;
  if (entry.nativeTools !== undefined) facts.nativeTools = entry.nativeTools;
  if (entry.reasoning !== undefined) facts.reasoning = entry.reasoning;
  if (entry.pricing !== undefined) facts.pricing = entry.pricing;
  return facts;
}
