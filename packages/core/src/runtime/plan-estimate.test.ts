import { describe, expect, it } from "vitest";
import { describeEstimate } from "../events/plan-estimate.js";
import { emptyUsage } from "../model/types.js";
import { countSteps, estimatePlan } from "./plan-estimate.js";

const sonnet = { input: 3, output: 15 };
const plan = "Plan:\n1. Change the log line\n2. Add a test\n   - with a case for v2\n3. Run the tests";

describe("estimatePlan", () => {
  it("counts numbered and bulleted lines as steps, and a plan in prose as one", () => {
    expect(countSteps(plan)).toBe(4);
    expect(countSteps("Just rename the variable.")).toBe(1);
    expect(countSteps("-1 is not a step\n1.not either")).toBe(1);
  });

  it("prices the Act phase from the task's history: requests per step, the context resent each turn, its output so far", () => {
    const e = estimatePlan({ plan: "1. a\n2. b\n3. c", turns: 2, usage: { ...emptyUsage(), inputTokens: 40_000, outputTokens: 2_000 }, costUsd: 0.15, contextTokens: 20_000, pricing: sonnet });
    expect(e.steps).toBe(3);
    expect(e.turns).toEqual({ low: 4, high: 8 });
    // 4 turns resending 20k, growing by 1k output + 1k result each turn: 80k + 2k × (0+1+2+3).
    expect(e.input_tokens.low).toBe(92_000);
    expect(e.output_tokens.low).toBe(4_000);
    expect(e.input_tokens.high).toBe(Math.round((8 * 20_000 + 2_000 * 28) * 1.25));
    expect(e.usd!.low).toBeCloseTo(0.276 + 0.06, 6);
    expect(e.usd!.high).toBeGreaterThan(e.usd!.low);
    expect(e.spent_usd).toBe(0.15);
    expect(e.budget_usd).toBe(Math.ceil((0.15 + e.usd!.high) * 100) / 100);
    expect(e.method).toContain("3 steps in the plan");
    expect(describeEstimate(e)).toMatch(/^Act phase estimate: \$0\.34–\$\d\.\d\d \(4–8 requests, 92k–\d+k tokens in, 4k–10k out\), after \$0\.15 spent planning; a budget of \$\d\.\d\d stops it at the high end\.$/);
  });

  it("floors a reading Plan phase's small output and context, since acting writes", () => {
    const e = estimatePlan({ plan: "1. a", turns: 1, usage: { ...emptyUsage(), inputTokens: 500, outputTokens: 10 }, costUsd: 0, contextTokens: 500, pricing: sonnet });
    expect(e.output_tokens.low).toBe(2 * 400);
    expect(e.input_tokens.low).toBe(2 * 2_000 + 1_400);
  });

  it("falls back on the task's own cost per request without a price, and gives no cost when neither is known", () => {
    const reported = estimatePlan({ plan: "1. a", turns: 2, usage: emptyUsage(), costUsd: 0.02, contextTokens: 0, pricing: undefined });
    expect(reported.usd!.low).toBeCloseTo(0.02, 6);
    expect(reported.method).toContain("the task's own cost per request");
    const unknown = estimatePlan({ plan: "1. a", turns: 2, usage: emptyUsage(), costUsd: null, contextTokens: 0, pricing: undefined });
    expect(unknown.usd).toBeNull();
    expect(unknown.budget_usd).toBeNull();
    expect(describeEstimate(unknown)).toContain("no price is known");
  });
});
