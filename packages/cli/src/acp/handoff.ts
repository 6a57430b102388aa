import type { RequestPermissionOutcome, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { AgentEvent } from "@cairn/core";
import { TaskStore } from "@cairn/core/storage";
import { textContent } from "./tool-card.js";

/**
 * new_task in an editor. ACP has no way for an agent to open a thread of its own, so the editor's
 * thread goes on: the person is asked through session/request_permission (the one question with
 * choices ACP has), on the new_task call's card, and the fresh task continues the same ACP session.
 * The ACP session id stays the id of the first task of the chain; session/load follows the tasks'
 * hand-off links (stored in their metadata) to the task that carries the work now.
 */
export type HandoffAnswer = { approved: true; context: string } | { approved: false; feedback?: string };

export function handoffPermission(sessionId: string, toolCallId: string, context: string): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: { toolCallId, title: "Hand over to a fresh task with this context?", kind: "other", content: [textContent(context)] },
    options: [
      { optionId: "start_new_task", name: "Start the new task", kind: "allow_once" },
      { optionId: "stay", name: "Stay in this task", kind: "reject_once" },
    ],
  };
}

/** The editor's choice as core's answer; a cancelled request keeps the work here. */
export function handoffAnswer(outcome: RequestPermissionOutcome, context: string): HandoffAnswer {
  if (outcome.outcome === "selected" && outcome.optionId === "start_new_task") return { approved: true, context };
  return { approved: false };
}

/**
 * The tasks of one editor thread, from `id` along its hand-offs (the latest one where a task was
 * handed over more than once): the last is the one to carry on, the others are replayed before it.
 */
export function handoffChain(home: string, id: string): TaskStore[] {
  const chain = [TaskStore.open(home, id)];
  const seen = new Set([chain[0]!.id]);
  for (;;) {
    const next = chain.at(-1)!.metadata().children?.filter((c) => c.relation === "handoff").at(-1);
    if (!next || seen.has(next.id)) return chain;
    let store: TaskStore;
    try {
      store = TaskStore.open(home, next.id);
    } catch {
      return chain; // the task handed over to was deleted since: the thread carries on where it is known
    }
    seen.add(store.id);
    chain.push(store);
  }
}

/** The recorded events of the chain's earlier tasks, in order, for the editor's replay. */
export function earlierEvents(chain: readonly TaskStore[]): AgentEvent[] {
  return chain.slice(0, -1).flatMap((store) => store.loadEvents());
}
