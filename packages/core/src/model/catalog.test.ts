import { describe, expect, it } from "vitest";
import { modelInfo } from "./catalog.js";
import { costOf } from "./cost.js";

const price = (id: string) => modelInfo(id).pricing;

describe("modelInfo prices a model by its exact id", () => {
  it("never gives a cheap model the price of the expensive one its name extends", () => {
    expect(price("gpt-4o-mini")).toMatchObject({ input: 0.15, output: 0.6 });
    expect(price("gpt-4o")).toMatchObject({ input: 2.5, output: 10 });
    expect(price("gpt-5-nano")).toMatchObject({ input: 0.05, output: 0.4 });
    expect(price("gpt-5")).toMatchObject({ input: 1.25, output: 10 });
    expect(price("gpt-4.1-nano")).toMatchObject({ input: 0.1, output: 0.4 });
  });

  it("finds a model under a release date, a gateway's vendor prefix, or a dotted version", () => {
    expect(price("gpt-4o-mini-2024-07-18")).toEqual(price("gpt-4o-mini"));
    expect(price("claude-sonnet-4-5-20250929")).toEqual(price("claude-sonnet-4-5"));
    expect(price("anthropic/claude-sonnet-4.5")).toEqual(price("claude-sonnet-4-5"));
    expect(price("openai/gpt-4.1-mini")).toEqual(price("gpt-4.1-mini"));
  });

  it("has no price for a model it does not know, not a neighbour's", () => {
    for (const id of ["gpt-4o-mini-realtime-preview", "gpt-5-pro", "claude-sonnet-4-5-turbo", "minimax/minimax-m2:free", "anthropic/claude-sonnet-4.5:free", "qwen3-max", "grok-3-mini"]) {
      expect(price(id), id).toBeUndefined();
      expect(costOf({ inputTokens: 1000, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 }, price(id)), id).toBeNull();
    }
  });

  it("prices an Anthropic cache write at 1.25 times input and a read at a tenth", () => {
    expect(price("claude-sonnet-4-6")).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
  });
});
