import type { ApprovalRequest, ApprovalResponse, Host, PlanEstimate, PlanReview } from "@cairn/core";
import type { SessionView } from "./session-view.js";
import type { ApprovalAnswer, HandoffAnswer } from "./view-types.js";

/**
 * The Host of an interactive session: every callback becomes a prompt in the view and waits for
 * the person (what was asked and answered reaches the history as the runner's awaiting/answered
 * events). "Always allow" answers with remember: "task" or "workspace", so the task's policy
 * adds the request's suggested rule (and saves it for the workspace) and records later calls as
 * allowed by that rule; the host keeps no list of its own.
 */
export class InteractiveHost implements Host {
  constructor(private readonly view: SessionView) {}

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    const answer = await this.view.ask<ApprovalAnswer>((resolve) => ({ kind: "approval", request, resolve }), { approved: false }, signal);
    return {
      approved: answer.approved,
      ...(answer.feedback ? { feedback: answer.feedback } : {}),
      ...(answer.approved && answer.remember && !request.protected && request.suggested_rule ? { remember: answer.remember } : {}),
    };
  }

  ask(question: string, options: string[], signal: AbortSignal): Promise<string | undefined> {
    return this.view.ask<string | undefined>((resolve) => ({ kind: "question", question, options, resolve }), undefined, signal);
  }

  reviewPlan(plan: string, signal: AbortSignal, estimate?: PlanEstimate): Promise<PlanReview> {
    return this.view.ask<PlanReview>((resolve) => ({ kind: "plan", plan, ...(estimate ? { estimate } : {}), resolve }), { approved: false }, signal);
  }

  /** new_task: the context is shown in full above the prompt (its awaiting event); the person starts the new task (adding to it) or keeps the work here. */
  async confirmNewTask(context: string, signal: AbortSignal): Promise<{ approved: true; context: string } | { approved: false; feedback?: string }> {
    const answer = await this.view.ask<HandoffAnswer>((resolve) => ({ kind: "handoff", context, resolve }), { start: false }, signal);
    if (!answer.start) return { approved: false, ...(answer.feedback ? { feedback: answer.feedback } : {}) };
    return { approved: true, context: answer.addition ? `${context}\n\nThe user adds: ${answer.addition}` : context };
  }

  confirmContinue(reason: string, signal: AbortSignal): Promise<boolean> {
    return this.view.ask<boolean>((resolve) => ({ kind: "confirm", title: "The task looks stuck. Let it go on?", detail: reason, resolve }), false, signal);
  }
}
