import type { ApprovalCategory } from "../runtime/events.js";
import type { AnyTool, ToolAccess } from "../tools/tool.js";
import { resolveWorkspacePath } from "./workspace.js";

export const approvalCategories: readonly ApprovalCategory[] = [
  "read",
  "read-external",
  "edit",
  "edit-external",
  "safe-commands",
  "all-commands",
  "browser",
  "mcp",
];

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
export function approvalCategory(
  tool: AnyTool,
  input: Record<string, unknown>,
  cwd: string,
  commandRisk?: "safe" | "needs_approval",
  /** Folders outside the workspace whose reads count as plain reads (the task's own scratch folder of logs). */
  readRoots: readonly string[] = [],
): ApprovalCategory | undefined {
  if (tool.kind === "command") return commandRisk === "safe" && input.requires_approval === false ? "safe-commands" : "all-commands";
  const accesses: ToolAccess[] = tool.access?.(input) ?? [];
  const touched = accesses.filter((a): a is Exclude<ToolAccess, { type: "none" }> => a.type !== "none");
  if (touched.length > 0) {
    const edits = touched.some((a) => a.type === "edit");
    if (edits) return touched.some((a) => resolveWorkspacePath(cwd, a.path).external) ? "edit-external" : "edit";
    const external = touched.some((a) => {
      const resolved = resolveWorkspacePath(cwd, a.path);
      return resolved.external && !readRoots.some((root) => !resolveWorkspacePath(root, resolved.absolute).external);
    });
    return external ? "read-external" : "read";
  }
  switch (tool.kind) {
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
