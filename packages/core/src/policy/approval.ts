import type { ApprovalCategory } from "./approval-category.js";
import { approvalCategories } from "./approval-category.js";
import type { CallFacts } from "./call-facts.js";

export { approvalCategories };

export type ApprovalSettings = {
  /** Approve everything, without asking. */
  yolo: boolean;
  autoApprove: ReadonlySet<ApprovalCategory>;
};

/**
 * The approval a call needs, or undefined when it needs none (questions, completion). A command
 * counts as a safe command only when the built-in classifier finds it safe AND the model did not
 * ask for approval: the model's own requires_approval=false is never enough (Cline's #12020).
 */
export function approvalCategory(facts: CallFacts): ApprovalCategory | undefined {
  if (facts.kind === "command") return facts.command?.risk === "safe" && !facts.command.modelAsksApproval ? "safe-commands" : "all-commands";
  if (facts.paths.length > 0) {
    if (facts.paths.some((p) => p.access === "edit")) return facts.paths.some((p) => p.external) ? "edit-external" : "edit";
    return facts.paths.some((p) => p.external && !p.inReadRoot) ? "read-external" : "read";
  }
  switch (facts.kind) {
    case "read":
      return "read";
    case "edit":
      return "edit";
    case "browser":
      return "browser";
    case "mcp":
      return "mcp";
    default:
      return undefined;
  }
}

export type AutoDecision = { approved: true; reason: string } | undefined;

/** Whether settings approve the category on their own; undefined means the host must decide. */
export function autoApproval(category: ApprovalCategory, settings: ApprovalSettings): AutoDecision {
  if (settings.yolo) return { approved: true, reason: "yolo mode approves everything" };
  if (settings.autoApprove.has(category)) return { approved: true, reason: `auto-approved (${category})` };
  // Approving every command includes the safe ones.
  if (category === "safe-commands" && settings.autoApprove.has("all-commands")) return { approved: true, reason: "auto-approved (all-commands)" };
  return undefined;
}

/**
 * Whether a PreToolUse hook's `allow` may stand in for the person's yes. It may for the ordinary
 * categories, including a command the classifier wants approved (skipping that prompt is what
 * `allow` is for; Claude Code's hooks work the same way). It may not for a path outside the
 * workspace: the boundary is the person's to cross, so such a call goes on to the person's own
 * settings (yolo, read-external, edit-external) or to the person. Command deny rules run before
 * approval and the sandbox wraps the command whatever approved it, so neither depends on this;
 * protected files never reach it (only the person approves them).
 */
export function hookMayAllow(category: ApprovalCategory): boolean {
  return category !== "read-external" && category !== "edit-external";
}

/** Parses a comma list such as "read,edit"; returns the unknown names separately so the caller can say what is wrong. */
export function parseApprovalList(list: string): { categories: ApprovalCategory[]; unknown: string[] } {
  const names = list.split(",").map((s) => s.trim()).filter((s) => s !== "");
  const categories: ApprovalCategory[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    if ((approvalCategories as readonly string[]).includes(name)) categories.push(name as ApprovalCategory);
    else unknown.push(name);
  }
  return { categories, unknown };
}
