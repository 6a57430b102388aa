import type { Decision } from "./decision.js";
import type { ApprovalCategory } from "./approval-category.js";
import { approvalCategory, autoApproval, hookMayAllow, type ApprovalSettings } from "./approval.js";
import { guardedAccess, protectedHit, type CallFacts } from "./call-facts.js";
import type { CommandPermissions } from "./command/index.js";
import { matchingRule, type PermissionRule, type RuleScope } from "./permission-rules.js";
import { refusalOf, type Refusal } from "./refusals.js";

/** What the person configured: yolo, the auto-approved categories, and the command rules (allow/deny, in every mode). */
export type PolicyRules = ApprovalSettings & { commands?: CommandPermissions | undefined };

/** An "always allow" rule in force, and where it came from. */
export type ActiveRule = PermissionRule & { scope: RuleScope };

/** What the task has learned while running: the "always allow" rules in force (saved ones and this task's). */
export type PolicyState = { rules: readonly ActiveRule[] };

/** A refusal (see refusals.ts), or a call that may run or needs the person. */
export type CallDecision = ({ action: "deny" } & Refusal) | {
  action: "allow" | "ask";
  by: Decision["by"];
  reason: string;
  /** The approval the call needs; absent for calls that need none. */
  category?: ApprovalCategory;
  /** The "always allow" rule that answered (by: "rule"). */
  rule?: string;
  /** Set when only the person may answer (a protected file). */
  protected?: { path: string; reason: string };
};

/**
 * Whether a call may run, must be refused, or needs the person, and who decided: every "no" a
 * call gets before the person is asked is said here, in one form. In order: the refusals that
 * nothing approves (refusalOf: mode, narration, ignore files, a hook's deny, command rules);
 * a protected file goes to the person alone; a call needing no approval runs; a hook's allow
 * stands in for the person except across the workspace boundary; then (unless a hook asked
 * for the person) the tool's own configuration, yolo, the auto-approved categories and the
 * "always allow" rules; otherwise ask. Pure: the runtime gathers the facts.
 */
export function decideCall(facts: CallFacts, rules: PolicyRules, state: PolicyState): CallDecision {
  const refused = refusalOf(facts, rules.commands);
  if (refused) return { action: "deny", ...refused };
  const needed = approvalCategory(facts) ?? (facts.hook === "ask" ? "read" : undefined);
  const guarded = protectedHit(facts);
  if (guarded) {
    return {
      action: "ask",
      by: "user",
      reason: `${guarded.path} is a protected file (${guarded.reason}); only the person can approve ${guardedAccess(facts)} it`,
      category: needed ?? "edit",
      protected: { path: guarded.path, reason: guarded.reason },
    };
  }
  if (!needed) return { action: "allow", by: "auto", reason: "needs no approval" };
  const category = needed;
  if (facts.hook === "allow" && hookMayAllow(category)) return { action: "allow", by: "hook", reason: "allowed by a PreToolUse hook", category };
  if (facts.hook !== "ask") {
    if (facts.autoApproved) return { action: "allow", by: "auto", reason: "auto-approved by its server's configuration", category };
    const auto = autoApproval(category, rules);
    if (auto) return { action: "allow", by: "auto", reason: auto.reason, category };
    const rule = matchingRule(state.rules, facts) as ActiveRule | undefined;
    if (rule) return { action: "allow", by: "rule", reason: `allowed by the ${rule.scope} rule ${rule.text}`, category, rule: rule.text };
  }
  return { action: "ask", by: "user", reason: `needs approval (${category})${commandReasons(facts)}`, category };
}

/** Why a command needs the person, as a reason and the approval prompt append it: " (what the classifier found; …)", or "" when it found nothing. */
export function commandReasons(facts: CallFacts): string {
  return facts.command && facts.command.reasons.length > 0 ? ` (${facts.command.reasons.join("; ")})` : "";
}
