/**
 * Who let a call run or refused it, and why. `rule`: the "always allow" rule that answered.
 * A leaf in policy, which makes the decision: events carry it to hosts and the journal.
 */
export type Decision = {
  approved: boolean;
  by: "auto" | "user" | "policy" | "hook" | "rule";
  reason: string;
  feedback?: string;
  rule?: string;
};
