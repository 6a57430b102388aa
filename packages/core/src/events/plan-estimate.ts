/** A low and a high end: an estimate is a range, never one number. */
export type EstimateRange = { low: number; high: number };

/**
 * What carrying out a plan (its Act phase) should take, shown with the plan so the person can
 * agree a budget before any work is done. Snake case: it travels in events and results as JSON.
 */
export type PlanEstimate = {
  /** Items in the plan (numbered or bulleted lines; at least 1). */
  steps: number;
  /** Model requests the Act phase should take. */
  turns: EstimateRange;
  /** Tokens sent (input, counting what a cache would serve) and received over those requests. */
  input_tokens: EstimateRange;
  output_tokens: EstimateRange;
  /** The Act phase's cost; null when neither the model's price nor the task's own cost is known. */
  usd: EstimateRange | null;
  /** What the task has cost so far (the Plan phase); null when unknown. */
  spent_usd: number | null;
  /** The task budget (--max-budget-usd counts the whole task) that stops the Act phase at the high end: spent + usd.high, rounded up to a cent. */
  budget_usd: number | null;
  /** How the numbers were made, in one sentence, for the person to judge them. */
  method: string;
};

/** One line for a person: "$0.34–$0.96 (4–8 requests, 92k–270k tokens in, 4k–10k out); budget $1.11". */
export function describeEstimate(estimate: PlanEstimate): string {
  const tokens = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));
  const counts = `${estimate.turns.low}–${estimate.turns.high} requests, ${tokens(estimate.input_tokens.low)}–${tokens(estimate.input_tokens.high)} tokens in, ${tokens(estimate.output_tokens.low)}–${tokens(estimate.output_tokens.high)} out`;
  if (!estimate.usd) return `Act phase estimate: ${counts}; no price is known for the model, so no cost.`;
  const spent = estimate.spent_usd !== null ? `, after $${formatUsd(estimate.spent_usd)} spent planning` : "";
  return `Act phase estimate: $${formatUsd(estimate.usd.low)}–$${formatUsd(estimate.usd.high)} (${counts})${spent}; a budget of $${estimate.budget_usd!.toFixed(2)} stops it at the high end.`;
}

/** Dollars as a person reads them: cents, or four places below a cent. */
export function formatUsd(amount: number): string {
  return amount >= 0.01 || amount === 0 ? amount.toFixed(2) : amount.toFixed(4);
}
