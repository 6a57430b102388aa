import { describe, expect, it } from "vitest";
import { reasoningProviderOptions } from "./reasoning.js";

describe("reasoningProviderOptions", () => {
  it("Anthropic: extended thinking with the budget given, or one picked from the effort", () => {
    expect(reasoningProviderOptions("anthropic", { thinkingTokens: 5000 })).toEqual({ anthropic: { thinking: { type: "enabled", budgetTokens: 5000 } } });
    expect(reasoningProviderOptions("anthropic", { effort: "high" })).toEqual({ anthropic: { thinking: { type: "enabled", budgetTokens: 24_576 } } });
    expect(reasoningProviderOptions("anthropic", { thinkingTokens: 10 })).toEqual({ anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } });
  });

  it("OpenAI and compatible APIs: the effort given, or the nearest to a budget", () => {
    expect(reasoningProviderOptions("openai", { effort: "low" })).toEqual({ openai: { reasoningEffort: "low" } });
    expect(reasoningProviderOptions("openai", { thinkingTokens: 8000 })).toEqual({ openai: { reasoningEffort: "medium" } });
    expect(reasoningProviderOptions("deepseek", { thinkingTokens: 50_000 })).toEqual({ openaiCompatible: { reasoningEffort: "high" } });
  });

  it("nothing asked, nothing sent", () => {
    expect(reasoningProviderOptions("anthropic", undefined)).toBeUndefined();
    expect(reasoningProviderOptions("openai", {})).toBeUndefined();
  });
});
