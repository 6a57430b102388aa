import type { AgentEvent } from "../events/index.js";
import type { ToolResult } from "../tools/tool.js";
import type { ExecutedCall } from "./execute-call.js";
import type { FocusChain } from "./focus-chain.js";
import { confirmHandoff } from "./handoff.js";
import type { Host, PlanReview } from "./host.js";
import type { PlanEstimate } from "./plan-estimate.js";
import type { TaskHooks } from "./task-hooks.js";

export type Control = NonNullable<ToolResult["control"]>;

/** What the person and the hooks answered to a step's control call; `notes` tell the model. */
export type ControlAnswers = {
  control: Control | undefined;
  /** The person's review of a plan (plan_mode_respond); undefined when no host can ask. */
  plan: PlanReview | undefined;
  /** What the plan's Act phase should take, shown with it. */
  estimate: PlanEstimate | undefined;
  handoff: { approved: true; context: string } | { approved: false; feedback?: string } | undefined;
  /** A hook's call that ends the run. */
  endRun: string | undefined;
  /** Why attempt_completion does not finish the task yet. */
  stopBlocked: string | undefined;
  /** A Stop hook (rather than the checklist) held the completion back. */
  stopHookBlocked: boolean;
  notes: string[];
};

/**
 * What the model's control calls ask of the loop once a step's calls have run, before their
 * results are recorded: a person reviews a plan, confirms a hand-off, and a completion is held
 * back while the task_progress checklist has open items or a Stop hook wants more work. The loop
 * then decides from the answers how the run goes on.
 */
export async function answerControls(
  executed: readonly ExecutedCall[],
  ctx: {
    yolo: boolean;
    host: Host | undefined;
    focus: FocusChain;
    hooks: TaskHooks;
    stopContinuations: number;
    signal: AbortSignal;
    emit: (event: AgentEvent) => void;
    /** The Act phase of a plan, from the task's history so far. */
    estimate: (plan: string) => PlanEstimate;
  },
): Promise<ControlAnswers> {
  const notes: string[] = [];
  const control = executed.map((e) => e.result.control).find((c) => c !== undefined);
  let plan: ControlAnswers["plan"];
  let estimate: PlanEstimate | undefined;
  if (control?.type === "plan") {
    estimate = ctx.estimate(control.plan);
    plan = ctx.yolo ? { approved: true } : await ctx.host?.reviewPlan?.(control.plan, ctx.signal, estimate);
    if (plan?.approved) notes.push("[The user approved your plan. You are now in ACT mode: carry the plan out with the tools, and finish with attempt_completion.]");
    else if (plan?.feedback) notes.push(`[The user reviewed your plan and said: ${plan.feedback}]`);
  }
  const handoff = control?.type === "new_task" ? await confirmHandoff(ctx.host, control.context, ctx.signal) : undefined;
  if (handoff && !handoff.approved) notes.push(`[The user did not start the new task${handoff.feedback ? ` and said: ${handoff.feedback}` : ""}. Continue the work in this task.]`);
  const endRun = executed.find((e) => e.endRun)?.endRun;
  let stopBlocked: string | undefined;
  let stopHookBlocked = false;
  const openItems = control?.type === "complete" && !endRun ? ctx.focus.completionCheck() : undefined;
  if (openItems) {
    stopBlocked = "the task_progress checklist has open items";
    notes.push(openItems);
  }
  if (control?.type === "complete" && !endRun && !stopBlocked) {
    stopBlocked = await ctx.hooks.stopBlocked(ctx.stopContinuations, ctx.emit, ctx.signal);
    if (stopBlocked) {
      stopHookBlocked = true;
      notes.push(`[A Stop hook does not let you finish yet: ${stopBlocked}. Keep working, then call attempt_completion again.]`);
    }
  }
  return { control, plan, estimate, handoff, endRun, stopBlocked, stopHookBlocked, notes };
}
