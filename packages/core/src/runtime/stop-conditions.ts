import type { Message } from "../model/types.js";
import type { ProtocolName } from "../protocol/types.js";
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

/**
 * Why the loop stops after replies without a tool call. Under native function calling, a model that
 * never called a tool at all most likely cannot: say which protocol works without it.
 */
export function noToolReason(replies: number, protocol: ProtocolName, history: readonly Message[]): string {
  const everCalled = history.some((m) => m.role === "assistant" && m.content.some((p) => p.type === "tool-call"));
  if (protocol === "native" && !everCalled) {
    return `the model never called a tool (${replies} replies in a row without one); if it does not support function calling, run with --protocol xml`;
  }
  return `the model replied ${replies} times in a row without using a tool`;
}
