import type { EstimateRange, PlanEstimate } from "../events/index.js";
import type { Pricing, Usage } from "../model/types.js";

export type { EstimateRange, PlanEstimate };

/** What the estimate is made from: the plan and the task's own history so far. */
export type PlanEstimateInput = {
  plan: string;
  /** The task's requests so far, their usage and cost. */
  turns: number;
  usage: Usage;
  costUsd: number | null;
  /** Tokens the task's latest request sent: every Act request sends at least this much again. */
  contextTokens: number;
  pricing: Pricing | undefined;
};

/** An Act request writes code: below this many output tokens a turn, a reading Plan phase would undersell it. */
const outputFloor = 400;
/** A request carries at least the system prompt and the tools. */
const inputFloor = 2_000;
/** What each turn adds to the conversation besides its output: the call's result (a file read, a command's output). */
const resultTokens = 1_000;
/** Added to the high end for what the plan does not say (a failing test, a second try). */
const margin = 1.25;

/**
 * The Act phase of a plan, from the plan's steps and the task's history: one to two requests a
 * step plus the completion; each resends the conversation so far (the latest request's size,
 * growing by a turn's output and a call's result every turn) and writes the task's average output
 * so far (at least outputFloor); priced at the model's rates, input as uncached (a cache only
 * lowers it), or else at the task's own cost per request so far. The high end has a margin.
 */
export function estimatePlan(input: PlanEstimateInput): PlanEstimate {
  const steps = countSteps(input.plan);
  const turns = { low: steps + 1, high: 2 * steps + 2 };
  const sentSoFar = input.usage.inputTokens + input.usage.cacheReadTokens + input.usage.cacheWriteTokens;
  const perTurnIn = Math.max(input.contextTokens, input.turns > 0 ? Math.round(sentSoFar / input.turns) : 0, inputFloor);
  const perTurnOut = Math.max(input.turns > 0 ? Math.round(input.usage.outputTokens / input.turns) : 0, outputFloor);
  const growth = perTurnOut + resultTokens;
  // Turn k (from 0) resends what the first sent plus k turns' growth.
  const sent = (n: number) => n * perTurnIn + (growth * n * (n - 1)) / 2;
  const input_tokens = { low: Math.round(sent(turns.low)), high: Math.round(sent(turns.high) * margin) };
  const output_tokens = { low: turns.low * perTurnOut, high: Math.round(turns.high * perTurnOut * margin) };
  const usd = costOfRange(input, input_tokens, output_tokens, turns);
  const spent_usd = input.costUsd;
  const budget_usd = usd ? Math.ceil(((spent_usd ?? 0) + usd.high) * 100) / 100 : null;
  const priced = input.pricing
    ? `at the model's price ($${input.pricing.input}/$${input.pricing.output} per million tokens in/out, input uncached)`
    : usd
      ? "at the task's own cost per request so far"
      : "with no price known for the model";
  const method =
    `${steps} step${steps === 1 ? "" : "s"} in the plan → ${turns.low}–${turns.high} requests, each resending about ${perTurnIn} tokens (the task's latest request, growing ${growth} a turn) ` +
    `and writing about ${perTurnOut} (the task's average so far, at least ${outputFloor}), ${priced}; the high end adds ${Math.round((margin - 1) * 100)}%.`;
  return { steps, turns, input_tokens, output_tokens, usd, spent_usd, budget_usd, method };
}

/** Numbered ("1." "2)") and bulleted ("-" "*") lines of the plan, at least 1 (a plan in prose is one step). */
export function countSteps(plan: string): number {
  const items = plan.split("\n").filter((line) => /^\s*(\d+[.)]|[-*+])\s+\S/.test(line));
  return Math.max(1, Math.min(items.length, 50));
}

function costOfRange(input: PlanEstimateInput, sent: EstimateRange, received: EstimateRange, turns: EstimateRange): EstimateRange | null {
  const { pricing } = input;
  if (pricing) {
    const at = (tokensIn: number, tokensOut: number) => (tokensIn * pricing.input + tokensOut * pricing.output) / 1_000_000;
    return { low: at(sent.low, received.low), high: at(sent.high, received.high) };
  }
  // A provider that reports each request's cost (OpenRouter) but no price: its cost per request so far.
  if (input.costUsd === null || input.turns === 0) return null;
  const perTurn = input.costUsd / input.turns;
  return { low: perTurn * turns.low, high: perTurn * turns.high * margin * 1.5 };
}
