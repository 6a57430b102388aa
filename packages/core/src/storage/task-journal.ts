import type { AgentEvent } from "../events/index.js";
import type { Message } from "../model/types.js";
import type { CallOutcome, ParsedCall } from "../protocol/types.js";
import type { Mode } from "../policy/mode.js";

/** A result the model gets back for a call (the protocol's shape of it). */
type CallResult = CallOutcome["result"];

/** A call that ran before its reply's results were recorded (kept so a resumed task knows). */
export type PendingResult = { call: ParsedCall; result: CallResult };

export type TaskState = {
  mode: Mode;
  status: "running" | "completed" | "needs_input" | "failed" | "aborted";
  turns: number;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  totalCostUsd: number | null;
  result?: string;
  /** The focus chain's latest checklist, so a resumed task and its readers have it. */
  taskProgress?: Array<{ text: string; done: boolean }>;
  /** What the whole task may cost (USD) as agreed with an approved plan, so a resumed task keeps to it. */
  agreedBudgetUsd?: number;
};

/**
 * Where a task writes down what happens as it happens, so that a killed process loses at most
 * the response that was streaming. The runtime only calls it; storage decides how to keep it.
 */
export interface TaskJournal {
  /** A complete message was added to the conversation. */
  message(message: Message): void;
  /** A tool call finished before its message's results were recorded. */
  callResult(call: ParsedCall, result: CallResult): void;
  /** The conversation was replaced (restore, truncation). */
  replaceMessages(messages: readonly Message[]): void;
  event(event: AgentEvent): void;
  state(state: TaskState): void;
  /** A checkpoint of the workspace was made; `messageIndex` is the conversation's length then. */
  checkpoint?(record: { hash: string; messageIndex: number; label: string; createdAt: string }): void;
  /** Whether a checkpoint of this task is recorded, from any of its runs: a task carried on without one gets a baseline before its first change. */
  hasCheckpoint?(): boolean;
}
