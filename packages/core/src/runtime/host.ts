import type { ApprovalCategory } from "./events.js";

export type ApprovalRequest = {
  id: string;
  tool: string;
  category: ApprovalCategory;
  summary: string;
  input: Record<string, unknown>;
  /**
   * Set when the call changes a protected file (.cairnignore, .cairn/, .mcp.json, .git/...): the
   * host must ask the person about this one call, never answer from an "always allow" it remembers.
   */
  protected?: { path: string; reason: string };
};

export type ApprovalResponse = { approved: boolean; feedback?: string };

/**
 * What a host supplies. A headless host answers from its flags; an interactive one asks the person.
 * Without `approve`, calls that need approval are denied; without `ask`, a question ends the run
 * with `needs_input`.
 */
export type Host = {
  approve?(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse>;
  /** The person's answer, or undefined when nobody can answer now. */
  ask?(question: string, options: string[], signal: AbortSignal): Promise<string | undefined>;
  /** A plan from Plan mode: approve it (the task switches to Act) or send feedback. Without it, the run ends with needs_input. */
  reviewPlan?(plan: string, signal: AbortSignal): Promise<{ approved: boolean; feedback?: string }>;
  /** Loop detection or the mistake limit stopped the task: true lets it go on. Without it, the run ends. */
  confirmContinue?(reason: string, signal: AbortSignal): Promise<boolean>;
};
