import type { ApprovalPreview, PlanEstimate } from "../events/index.js";
import type { ApprovalCategory } from "../policy/approval-category.js";
import type { RuleScope } from "../policy/permission-rules.js";

export type ApprovalRequest = {
  tool_use_id: string;
  tool: string;
  category: ApprovalCategory;
  summary: string;
  input: Record<string, unknown>;
  /** What the person must see (the diff, the command and its sandbox, the URL), computed once in core. */
  preview?: ApprovalPreview;
  /**
   * Set when the call changes a protected file (.cairnignore, .cairn/, .mcp.json, .git/...): the
   * host must ask the person about this one call; "always allow" does not apply to it.
   */
  protected?: { path: string; reason: string };
  /** The rule "always allow" would add, shown to the person, e.g. "execute_command(npm test *)"; absent for protected files. */
  suggested_rule?: string;
};

export type ApprovalResponse = {
  approved: boolean;
  feedback?: string;
  /** "Always allow": add the request's suggested_rule at this scope (ignored for protected files). */
  remember?: RuleScope;
};

/** The person's answer to a plan; `budgetUsd` (approved only): the whole task's budget in USD, counting what it has spent. */
export type PlanReview = { approved: boolean; feedback?: string; budgetUsd?: number };

/**
 * What a host supplies. A headless host answers from its flags; an interactive one asks the person.
 * Without `approve`, calls that need approval are denied; without `ask`, a question ends the run
 * with `needs_input`.
 */
export type Host = {
  approve?(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse>;
  /** The person's answer, or undefined when nobody can answer now. */
  ask?(question: string, options: string[], signal: AbortSignal): Promise<string | undefined>;
  /**
   * A plan from Plan mode, with what its Act phase should take: approve it (the task switches to
   * Act; with `budgetUsd`, that is the task's budget from then on, as --max-budget-usd) or send
   * feedback. Without it, the run ends with needs_input.
   */
  reviewPlan?(plan: string, signal: AbortSignal, estimate?: PlanEstimate): Promise<PlanReview>;
  /** Loop detection or the mistake limit stopped the task: true lets it go on. Without it, the run ends. */
  confirmContinue?(reason: string, signal: AbortSignal): Promise<boolean>;
  /**
   * The model wants to hand over to a fresh task (new_task): start it with this context (the
   * person may have edited it), or stay here with the person's feedback. Without it, the run ends
   * with the hand-off (result.new_task) and the host starts the new task.
   */
  confirmNewTask?(context: string, signal: AbortSignal): Promise<{ approved: true; context: string } | { approved: false; feedback?: string }>;
};
