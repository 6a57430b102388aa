import type { AgentEvent, PlanEstimate } from "../events/index.js";
import type { Message } from "../model/types.js";
import type { Mode } from "../policy/mode.js";
import { resumeText } from "../runtime/resume.js";
import type { TaskMetadata, TaskStore } from "../storage/task-store.js";

/** How a stored task was left, to show it again and word the message that carries it on. */
export type ResumedState = {
  meta: TaskMetadata;
  /** Its process ended without a result (a crash, a kill). */
  interrupted: boolean;
  /** Its recorded events (no deltas), to show where it stopped. */
  events: AgentEvent[];
  /** The conversation as the model will see it (a host that replays the task shows it). */
  messages: Message[];
  /** A question or plan it was waiting on. */
  question?: { text: string; options: string[] };
  plan?: string;
  /** What the plan's Act phase should take, as estimated when it was presented. */
  planEstimate?: PlanEstimate;
  /** The workspace it worked in before, when it carries on in another folder (resumeSession's cwd). */
  movedFrom?: string;
};

export function resumedState(store: TaskStore, meta: TaskMetadata, interrupted: boolean, messages: Message[], movedFrom?: string): ResumedState {
  const events = store.loadEvents();
  const last = [...events].reverse().find((e): e is Extract<AgentEvent, { type: "result" }> => e.type === "result");
  const resumed: ResumedState = { meta, interrupted, events, messages, ...(movedFrom ? { movedFrom } : {}) };
  if (meta.status === "needs_input" && last?.question) resumed.question = last.question;
  if (meta.status === "needs_input" && last?.plan) resumed.plan = last.plan;
  if (meta.status === "needs_input" && last?.plan && last.plan_estimate) resumed.planEstimate = last.plan_estimate;
  return resumed;
}

/**
 * The message that carries a reopened task on, worded for how it was left: an answer to its
 * question, the approval of its plan (when the mode goes from plan to act), or a note that it was
 * interrupted. A slash command goes to the task as it is.
 */
export function resumeMessage(resumed: ResumedState, mode: Mode, message: string | undefined): string {
  if (message?.startsWith("/")) return message;
  const text = resumeText({
    status: resumed.meta.status,
    interrupted: resumed.interrupted,
    planApproved: resumed.meta.mode === "plan" && mode === "act" && resumed.meta.status === "needs_input",
    message,
  });
  // The conversation names the old folder's paths; the model must not edit there out of habit.
  if (!resumed.movedFrom) return text;
  return `[This task now works in ${resumed.meta.workspace}; the conversation above was in ${resumed.movedFrom}. Work in the new folder only, and check its files before relying on what you saw in the old one.]\n\n${text}`;
}
