import type { LanguageModelV3 } from "@ai-sdk/provider";
import { AiSdkModel } from "./ai-sdk-model.js";
import { modelInfo } from "./catalog.js";
import { baseUrlProblem, officialApiUrls, type Endpoint } from "./endpoint.js";
import { defaultRequestTimeoutSeconds, guardedFetch } from "./guarded-fetch.js";
import { LazyLanguageModel } from "./lazy-language-model.js";
import { doneWatchingFetch, endsWithDone } from "./stream-end.js";
import type { ReasoningOptions } from "./reasoning.js";
import type { Model, ModelInfo, ProviderId } from "./types.js";

type ProviderDefaults = {
  /** Environment variables holding the key, in order of preference (CAIRN_API_KEY is always the last fallback). */
  keyEnv: readonly string[];
  keyRequired: boolean;
  baseUrl?: string;
  baseUrlRequired?: boolean;
  defaultModel?: string;
};

export const providers: Readonly<Record<ProviderId, ProviderDefaults>> = {
  anthropic: { keyEnv: ["ANTHROPIC_API_KEY"], keyRequired: true, defaultModel: "claude-sonnet-4-5" },
  openai: { keyEnv: ["OPENAI_API_KEY"], keyRequired: true, defaultModel: "gpt-5" },
  "openai-compatible": { keyEnv: [], keyRequired: false, baseUrlRequired: true },
  openrouter: { keyEnv: ["OPENROUTER_API_KEY"], keyRequired: true, baseUrl: "https://openrouter.ai/api/v1", defaultModel: "anthropic/claude-sonnet-4.5" },
  deepseek: { keyEnv: ["DEEPSEEK_API_KEY"], keyRequired: true, baseUrl: "https://api.deepseek.com/v1", defaultModel: "deepseek-chat" },
  ollama: { keyEnv: [], keyRequired: false, baseUrl: "http://localhost:11434/v1" },
  lmstudio: { keyEnv: [], keyRequired: false, baseUrl: "http://localhost:1234/v1" },
};

export const providerIds = Object.keys(providers) as ProviderId[];

export function isProviderId(value: string): value is ProviderId {
  return Object.hasOwn(providers, value);
}

/** Where a provider's key may come from, in the order looked up: its own variables, then Cairn's. */
function keyVariables(provider: ProviderId): string[] {
  return [...providers[provider].keyEnv, "CAIRN_API_KEY"];
}

/** The first key found in the environment for this provider, then CAIRN_API_KEY. */
export function apiKeyFromEnv(provider: ProviderId, env: Record<string, string | undefined>): string | undefined {
  for (const name of keyVariables(provider)) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

export type ModelConfig = {
  provider: ProviderId;
  model: string;
  apiKey?: string;
  /** API root. Anthropic: with or without /v1. OpenAI and compatible endpoints: including /v1. */
  baseUrl?: string;
  /** Overrides what the catalog knows (context window, price, images...): see capabilities.ts for the layers. */
  info?: Partial<ModelInfo>;
  /** Longest wait in seconds for the first byte of a response and between two chunks (default 120). */
  requestTimeoutSeconds?: number;
  /** Extended thinking (a token budget) or reasoning effort, through the provider's own options. */
  reasoning?: ReasoningOptions;
  /** The transport under the model's requests (a recording's, a replay's); default the network. */
  fetch?: typeof globalThis.fetch;
};

/** A configuration problem a person must fix; the message names what to set. */
export class ModelConfigError extends Error {
  override name = "ModelConfigError";
}

/**
 * Why a key cannot go in an HTTP header, or undefined: fetch refuses line breaks, NUL and characters
 * beyond Latin-1 (a pasted "…" or a smart quote), and its error would quote the whole key.
 */
function apiKeyProblem(key: string): string | undefined {
  const index = key.search(/[\0\r\n]|[^\0-\xff]/);
  if (index === -1) return undefined;
  const char = key.codePointAt(index)!;
  const what = char === 0x0a || char === 0x0d ? "a line break" : `the character U+${char.toString(16).toUpperCase().padStart(4, "0")}`;
  return `${what} at position ${index + 1}`;
}

function anthropicBaseUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith("/v1") ? trimmed : `${trimmed}/v1`;
}

export function createModel(config: ModelConfig): Model {
  const defaults = providers[config.provider];
  if (!defaults) throw new ModelConfigError(`Unknown provider "${String(config.provider)}". Use one of: ${providerIds.join(", ")}.`);
  const keyEnv = keyVariables(config.provider);
  if (defaults.keyRequired && !config.apiKey) {
    throw new ModelConfigError(`No API key for ${config.provider}: set ${keyEnv.join(" or ")}.`);
  }
  const keyProblem = config.apiKey === undefined ? undefined : apiKeyProblem(config.apiKey);
  if (keyProblem) {
    throw new ModelConfigError(`The API key for ${config.provider} (from ${keyEnv.join(" or ")}) has ${keyProblem}, which cannot be sent in an HTTP header; copy the key again.`);
  }
  // new URL() forgives surrounding spaces; the messages that name the URL should not show them.
  const baseUrl = (config.baseUrl ?? defaults.baseUrl)?.trim();
  if (defaults.baseUrlRequired && !baseUrl) {
    throw new ModelConfigError(`Provider ${config.provider} needs a base URL: pass --base-url or set CAIRN_BASE_URL (e.g. http://localhost:8000/v1).`);
  }
  const problem = baseUrl === undefined ? undefined : baseUrlProblem(baseUrl);
  if (problem) throw new ModelConfigError(problem);
  const timeout = config.requestTimeoutSeconds ?? defaultRequestTimeoutSeconds;
  if (!(timeout > 0) || !Number.isFinite(timeout)) {
    throw new ModelConfigError(`The request timeout must be a number of seconds above 0, got ${timeout}.`);
  }
  const info: ModelInfo = { ...modelInfo(config.model, config.provider), ...config.info };
  // A model said not to reason is never asked to; one given an effort is asked for it unless the person asked for another.
  const reasoning = info.reasoning === false ? undefined : (config.reasoning ?? (typeof info.reasoning === "string" ? { effort: info.reasoning } : undefined));
  const apiKey = config.apiKey ?? "";
  const apiUrl = config.provider === "anthropic" && baseUrl ? anthropicBaseUrl(baseUrl) : baseUrl?.replace(/\/+$/, "");
  const endpoint: Endpoint = {
    provider: config.provider,
    model: config.model,
    url: apiUrl ?? officialApiUrls[config.provider] ?? config.provider,
    keyEnv,
  };
  const guarded = guardedFetch({ url: endpoint.url, idleTimeoutMs: timeout * 1000, ...(config.fetch ? { fetch: config.fetch } : {}) });
  const fetch = endsWithDone(config.provider) ? doneWatchingFetch(guarded) : guarded;
  const load = async (): Promise<LanguageModelV3> => {
    switch (config.provider) {
      case "anthropic": {
        const { createAnthropic } = await import("@ai-sdk/anthropic");
        return createAnthropic({ apiKey, fetch, ...(apiUrl ? { baseURL: apiUrl } : {}) })(config.model);
      }
      case "openai": {
        const { createOpenAI } = await import("@ai-sdk/openai");
        return createOpenAI({ apiKey, fetch, ...(apiUrl ? { baseURL: apiUrl } : {}) }).chat(config.model);
      }
      default: {
        const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
        const provider = createOpenAICompatible({
          name: config.provider,
          baseURL: apiUrl!,
          fetch,
          ...(config.apiKey ? { apiKey: config.apiKey } : {}),
          includeUsage: true,
        });
        return provider.chatModel(config.model);
      }
    }
  };
  return new AiSdkModel(config.provider, config.model, info, new LazyLanguageModel(config.provider, config.model, load), endpoint, reasoning);
}
