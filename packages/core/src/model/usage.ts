import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { RawStreamFacts } from "./raw-facts.js";
import type { Usage } from "./types.js";

type SdkUsage = Extract<LanguageModelV3StreamPart, { type: "finish" }>["usage"];

/** What streamed in one reply, in characters, to estimate tokens a provider did not count. */
export type StreamedChars = { prompt: number; output: number; reasoning: number };

/** About four characters a token for English and code: rough, and only used where nothing better exists. */
const tokensFor = (chars: number) => Math.ceil(chars / 4);

/**
 * One request's usage as the provider means it. The SDK's numbers, except where providers differ
 * from them: usage the SDK dropped with an error chunk is read from the raw chunk; reasoning counted
 * beside completion tokens (xAI) is added to output; reasoning that streamed but is reported as 0
 * or not at all (Mistral) is estimated from its text; and a server that reports no usage at all
 * (Ollama, vLLM, LM Studio) gets an estimate from the characters sent and received, marked as one.
 * A cost the provider reports itself (OpenRouter) is carried along, to be used before any price table.
 */
export function usageAsMeant(sdk: SdkUsage, facts: RawStreamFacts, chars: StreamedChars): Usage {
  const reported = sdk.inputTokens.total !== undefined || sdk.outputTokens.total !== undefined;
  const raw = reported ? undefined : facts.usage();
  if (!reported && !raw) {
    return {
      inputTokens: tokensFor(chars.prompt),
      outputTokens: tokensFor(chars.output + chars.reasoning),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      ...(chars.reasoning > 0 ? { reasoningTokens: tokensFor(chars.reasoning) } : {}),
      estimated: true,
    };
  }
  const usage = raw ?? fromSdk(sdk);
  if (chars.reasoning > 0 && !usage.reasoningTokens) usage.reasoningTokens = tokensFor(chars.reasoning);
  else if (facts.reasoningOutsideCompletion() && usage.reasoningTokens) usage.outputTokens += usage.reasoningTokens;
  const cost = facts.reportedCostUsd();
  if (cost !== undefined) usage.reportedCostUsd = cost;
  return usage;
}

function fromSdk(usage: SdkUsage): Usage {
  const cacheRead = usage.inputTokens.cacheRead ?? 0;
  const cacheWrite = usage.inputTokens.cacheWrite ?? 0;
  const total = usage.inputTokens.total ?? 0;
  return {
    inputTokens: usage.inputTokens.noCache ?? Math.max(0, total - cacheRead - cacheWrite),
    outputTokens: usage.outputTokens.total ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    ...(usage.outputTokens.reasoning !== undefined ? { reasoningTokens: usage.outputTokens.reasoning } : {}),
  };
}
