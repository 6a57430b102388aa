import type { ApprovalCategory, ApprovalRequest, ApprovalResponse, Host } from "@cairn/core";
import type { SessionView } from "./session-view.js";

/**
 * The Host of an interactive session: every callback becomes a prompt in the view and waits for
 * the person. "Always allow this kind" is remembered here, for the task's lifetime (the Task has
 * no setter for its auto-approve list, so the host answers those requests itself).
 */
export class InteractiveHost implements Host {
  readonly alwaysAllowed = new Set<ApprovalCategory>();

  constructor(private readonly view: SessionView) {}

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    // A protected file is asked about every time: "always allow edits" does not reach it.
    if (!request.protected && this.alwaysAllowed.has(request.category)) {
      const card = this.view.live.tools.find((c) => c.id === request.id);
      if (card) card.approvedBy = "always";
      return { approved: true };
    }
    const card = this.view.live.tools.find((c) => c.id === request.id);
    const answer = await this.view.ask<{ approved: boolean; feedback?: string; always?: boolean }>(
      (resolve) => ({ kind: "approval", request, ...(card ? { card: { ...card } } : {}), resolve }),
      { approved: false },
      signal,
    );
    if (answer.approved && answer.always && !request.protected) this.alwaysAllowed.add(request.category);
    return answer.feedback ? { approved: answer.approved, feedback: answer.feedback } : { approved: answer.approved };
  }

  async ask(question: string, options: string[], signal: AbortSignal): Promise<string | undefined> {
    const answer = await this.view.ask<string | undefined>((resolve) => ({ kind: "question", question, options, resolve }), undefined, signal);
    if (answer !== undefined) this.view.add({ kind: "user", text: answer });
    return answer;
  }

  async reviewPlan(plan: string, signal: AbortSignal): Promise<{ approved: boolean; feedback?: string }> {
    const review = await this.view.ask<{ approved: boolean; feedback?: string }>((resolve) => ({ kind: "plan", plan, resolve }), { approved: false }, signal);
    if (review.feedback) this.view.add({ kind: "user", text: review.feedback });
    return review;
  }

  confirmContinue(reason: string, signal: AbortSignal): Promise<boolean> {
    return this.view.ask<boolean>((resolve) => ({ kind: "confirm", title: "The task looks stuck. Let it go on?", detail: reason, resolve }), false, signal);
  }
}
