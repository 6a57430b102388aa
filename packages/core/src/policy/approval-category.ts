/**
 * The kinds of approval a call can need. A leaf: events, settings and hosts name categories
 * without importing the policy that decides them.
 */
export const approvalCategories = [
  "read",
  "read-external",
  "edit",
  "edit-external",
  "safe-commands",
  "all-commands",
  "browser",
  "mcp",
] as const;

export type ApprovalCategory = (typeof approvalCategories)[number];
