import { compactionSystemPrompt } from "../context/compact.js";
import type { Message, Model } from "../model/types.js";
import type { Host } from "./host.js";

/**
 * Handing the work over to a fresh task with an empty conversation: /newtask has the model write
 * what that task needs, and the model's own new_task is confirmed (or edited) by the person where
 * the host can ask. Both end the run with the hand-off as its result.
 */

const handoffRequest =
  "The user wants to continue this work in a fresh task with an empty conversation. Write everything that task needs, as its opening message: the goal, what is done, the decisions and why, the files involved (exact paths), the state of the work, and the next steps. Write it as instructions to the agent that will pick it up.";

/** /newtask: what a fresh task needs to carry this work on, written by the model. */
export async function writeHandoff(messages: readonly Message[], instructions: string, model: Model, signal: AbortSignal): Promise<string> {
  const request = `${handoffRequest}${instructions ? `\n\nThe user adds: ${instructions}` : ""}`;
  let text = "";
  for await (const event of model.stream({ system: compactionSystemPrompt, messages: [...messages, { role: "user", content: [{ type: "text", text: request }] }] }, signal)) {
    if (event.type === "text-delta") text += event.text;
  }
  return text.trim();
}

/** new_task: the person confirms (or edits) the hand-off where a host can ask; otherwise it goes ahead. */
export async function confirmHandoff(host: Host | undefined, context: string, signal: AbortSignal): Promise<{ approved: true; context: string } | { approved: false; feedback?: string }> {
  // Called on the host: a class's method (the TUI's) reads its own fields.
  if (!host?.confirmNewTask) return { approved: true, context };
  return host.confirmNewTask(context, signal);
}
