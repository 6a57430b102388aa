import type { SharedV3ProviderOptions } from "@ai-sdk/provider";
import type { ProviderId } from "./types.js";

export const reasoningEfforts = ["low", "medium", "high"] as const;
export type ReasoningEffort = (typeof reasoningEfforts)[number];

/** How much the model may think before it answers: a token budget, an effort, or both. */
export type ReasoningOptions = { thinkingTokens?: number; effort?: ReasoningEffort };

/** Anthropic takes a budget; an effort alone picks one (its minimum is 1,024). */
const effortBudget: Record<ReasoningEffort, number> = { low: 2_048, medium: 8_192, high: 24_576 };

/** OpenAI-style APIs take an effort; a budget alone picks the nearest. */
function effortFor(tokens: number): ReasoningEffort {
  if (tokens <= effortBudget.low) return "low";
  return tokens <= effortBudget.medium ? "medium" : "high";
}

/** The provider options that turn reasoning on for one request: Anthropic extended thinking, OpenAI reasoning effort. */
export function reasoningProviderOptions(provider: ProviderId, reasoning: ReasoningOptions | undefined): SharedV3ProviderOptions | undefined {
  if (!reasoning || (reasoning.thinkingTokens === undefined && reasoning.effort === undefined)) return undefined;
  if (provider === "anthropic") {
    const budgetTokens = Math.max(1_024, reasoning.thinkingTokens ?? effortBudget[reasoning.effort!]);
    return { anthropic: { thinking: { type: "enabled", budgetTokens } } };
  }
  const reasoningEffort = reasoning.effort ?? effortFor(reasoning.thinkingTokens!);
  if (provider === "openai") return { openai: { reasoningEffort } };
  return { openaiCompatible: { reasoningEffort } };
}
