import { describe, expect, it } from "vitest";
import { RawStreamFacts } from "./raw-facts.js";
import { usageAsMeant } from "./usage.js";

const none = { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } };
const sdk = (input: number, output: number, reasoning?: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: undefined },
  outputTokens: { total: output, text: undefined, reasoning },
});
const factsOf = (...chunks: unknown[]) => {
  const facts = new RawStreamFacts();
  for (const chunk of chunks) facts.observe(chunk);
  return facts;
};

describe("usageAsMeant", () => {
  it("adds reasoning counted beside completion tokens to output (xAI: total 560 = 307 + 26 + 227)", () => {
    const facts = factsOf({ choices: [], usage: { prompt_tokens: 307, completion_tokens: 26, total_tokens: 560, completion_tokens_details: { reasoning_tokens: 227 } } });
    expect(usageAsMeant(sdk(307, 26, 227), facts, { prompt: 0, output: 0, reasoning: 900 })).toMatchObject({ outputTokens: 253, reasoningTokens: 227 });
  });

  it("leaves output alone where it already includes the reasoning (OpenAI: total = prompt + completion)", () => {
    const facts = factsOf({ choices: [], usage: { prompt_tokens: 15, completion_tokens: 78, total_tokens: 93, completion_tokens_details: { reasoning_tokens: 64 } } });
    expect(usageAsMeant(sdk(15, 78, 64), facts, { prompt: 0, output: 0, reasoning: 0 })).toMatchObject({ outputTokens: 78, reasoningTokens: 64 });
  });

  it("estimates reasoning that streamed but was reported as 0 (Mistral)", () => {
    expect(usageAsMeant(sdk(28, 139, 0), new RawStreamFacts(), { prompt: 0, output: 40, reasoning: 400 })).toMatchObject({ outputTokens: 139, reasoningTokens: 100 });
  });

  it("estimates, and marks as estimated, the usage of a server that reports none (vLLM, Ollama)", () => {
    expect(usageAsMeant(none, new RawStreamFacts(), { prompt: 4000, output: 40, reasoning: 0 })).toEqual({
      inputTokens: 1000,
      outputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      estimated: true,
    });
  });

  it("reads the usage an error chunk carried when the SDK dropped it (OpenRouter)", () => {
    const facts = factsOf({ error: { code: 400 }, choices: [], usage: { prompt_tokens: 43, completion_tokens: 10, total_tokens: 53, prompt_tokens_details: { cached_tokens: 3 } } });
    expect(usageAsMeant(none, facts, { prompt: 4000, output: 40, reasoning: 0 })).toMatchObject({ inputTokens: 40, cacheReadTokens: 3, outputTokens: 10 });
    expect(usageAsMeant(none, facts, { prompt: 4000, output: 40, reasoning: 0 }).estimated).toBeUndefined();
  });
});

describe("a cost the provider reports", () => {
  const openrouter = (extra: Record<string, unknown>) =>
    factsOf({ choices: [], usage: { prompt_tokens: 43, completion_tokens: 36, total_tokens: 79, cost: 0.000669, ...extra } });

  it("is carried with the usage and beats the price table (OpenRouter's usage.cost)", async () => {
    const { costOf } = await import("./cost.js");
    const usage = usageAsMeant(sdk(43, 36), openrouter({}), { prompt: 0, output: 0, reasoning: 0 });
    expect(usage.reportedCostUsd).toBe(0.000669);
    expect(costOf(usage, { input: 100, output: 100 })).toBe(0.000669);
    expect(costOf(usage, undefined)).toBe(0.000669);
  });

  it("is not taken for a bring-your-own-key request, where it is only OpenRouter's fee", () => {
    expect(usageAsMeant(sdk(43, 36), openrouter({ is_byok: true }), { prompt: 0, output: 0, reasoning: 0 }).reportedCostUsd).toBeUndefined();
  });
});
