import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../events/agent-event.js";
import type { PlanEstimate } from "../events/plan-estimate.js";
import { foldEvent, initialTranscript } from "./fold.js";

const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const estimate: PlanEstimate = {
  steps: 2,
  turns: { low: 3, high: 6 },
  input_tokens: { low: 9_000, high: 30_000 },
  output_tokens: { low: 1_200, high: 3_000 },
  usd: { low: 0.05, high: 0.14 },
  spent_usd: 0.01,
  budget_usd: 0.15,
  method: "2 steps in the plan",
};
const fold = (events: AgentEvent[]) => events.reduce(foldEvent, initialTranscript());

describe("the fold: a plan's estimate and the budget agreed with it", () => {
  it("keeps the estimate on the plan it waits for, the budget from the approval, and the spend against it", () => {
    const waiting = fold([
      { type: "usage", model: "m", usage, cost_usd: 0.01, total_cost_usd: 0.01 },
      { type: "awaiting", kind: "plan", text: "1. a\n2. b", estimate },
    ]);
    expect(waiting.awaiting).toEqual({ kind: "plan", text: "1. a\n2. b", estimate });
    expect(waiting.items.at(-1)).toMatchObject({ kind: "awaiting", estimate });
    expect(waiting.usage.budget_usd).toBeUndefined();
    const approved = foldEvent(waiting, { type: "answered", kind: "plan", approved: true, budget_usd: 0.15 });
    expect(approved.usage).toMatchObject({ cost_usd: 0.01, budget_usd: 0.15 });
    expect(approved.items.at(-1)).toMatchObject({ answer: { approved: true, budget_usd: 0.15 } });
    const spending = foldEvent(approved, { type: "usage", model: "m", usage, cost_usd: 0.02, total_cost_usd: 0.03, budget_usd: 0.15 });
    expect(spending.usage).toMatchObject({ cost_usd: 0.03, budget_usd: 0.15 });
  });

  it("takes a budget set from the start (--max-budget-usd) from the usage events", () => {
    const t = fold([{ type: "usage", model: "m", usage, cost_usd: 0.01, total_cost_usd: 0.01, budget_usd: 0.5 }]);
    expect(t.usage).toMatchObject({ cost_usd: 0.01, budget_usd: 0.5 });
  });
});
