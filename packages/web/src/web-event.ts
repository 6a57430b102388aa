import type { Mode } from "@cairn/core";

/**
 * What the web host adds to a task's AgentEvents on its stream: facts about the task in this
 * server (opened, a message the person sent, running or idle) that no AgentEvent carries.
 */
export type WebEvent =
  | { type: "web_task"; title: string; cwd: string; model: string; provider: string; context_window: number | null; mode: Mode; resumed: boolean }
  /** `images`: how many pictures the person attached to it. */
  | { type: "web_user_message"; text: string; images?: number }
  | { type: "web_run"; running: boolean }
  | { type: "web_answered"; tool_use_id: string; answer: string }
  | { type: "web_notice"; level: "info" | "warning"; message: string }
  /** The task waits for the person: a plan to approve (Plan mode), or whether to go on after a loop or too many mistakes. */
  | { type: "web_prompt"; kind: "plan" | "continue"; text: string }
  | { type: "web_prompt_answered"; approved: boolean; feedback?: string }
  /** The person switched the task between Act and Plan (between runs). */
  | { type: "web_mode"; mode: Mode }
  /** The task was deleted from the store: pages drop it. */
  | { type: "web_deleted" }
  /** Files, the conversation or both went back to a checkpoint; `summary` says what happened, in a line. */
  | { type: "web_restored"; checkpoint: number; what: "files" | "conversation" | "both"; summary: string };
