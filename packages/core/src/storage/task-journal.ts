import type { Message } from "../model/types.js";
import type { ParsedCall } from "../protocol/types.js";
import type { ToolResult } from "../tools/tool.js";
import type { AgentEvent } from "./events.js";

export type TaskState = {
  mode: "act" | "plan";
  status: "running" | "completed" | "needs_input" | "failed" | "aborted";
  turns: number;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  totalCostUsd: number | null;
  result?: string;
  /** The focus chain's latest checklist, so a resumed task and its readers have it. */
  taskProgress?: Array<{ text: string; done: boolean }>;
};

/**
 * Where a task writes down what happens as it happens, so that a killed process loses at most
 * the response that was streaming. The runtime only calls it; storage decides how to keep it.
 */
export interface TaskJournal {
  /** A complete message was added to the conversation. */
  message(message: Message): void;
  /** A tool call finished before its message's results were recorded. */
  callResult(call: ParsedCall, result: ToolResult): void;
  /** The conversation was replaced (restore, truncation). */
  replaceMessages(messages: readonly Message[]): void;
  event(event: AgentEvent): void;
  state(state: TaskState): void;
  /** A checkpoint of the workspace was made; `messageIndex` is the conversation's length then. */
  checkpoint?(record: { hash: string; messageIndex: number; label: string; createdAt: string }): void;
}
