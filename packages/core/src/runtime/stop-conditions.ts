import type { Verdict } from "./execute-call.js";

export function turnLimitReached(turns: number, maxTurns: number | undefined): boolean {
  return maxTurns !== undefined && turns >= maxTurns;
}

export function mistakeLimitReached(mistakes: number, maxMistakes: number): boolean {
  return mistakes >= maxMistakes;
}

/**
 * Consecutive mistakes after a turn: any success resets the count; a turn whose calls all
 * failed adds one. Denials are the person's choice, not the model's mistake, and leave it as is.
 */
export function nextMistakeCount(current: number, verdicts: readonly Verdict[]): number {
  if (verdicts.includes("ok")) return 0;
  if (verdicts.includes("error")) return current + 1;
  return current;
}
