import type { ApprovalPreview, SandboxJson } from "../events/index.js";
import type { CallFacts } from "../policy/call-facts.js";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import { readHostTexts, type HostTexts, type TextFiles } from "../tools/files/index.js";
import type { PreviewedFiles } from "../tools/edit/previewed-file.js";
import type { AnyTool } from "../tools/tool.js";
import { accessesOf } from "./gather-facts.js";

/**
 * Where a preview reads: the workspace through the ignore rules, and the host's text read ahead for
 * this call; `previewed`: where it notes what it read, so the call writes only over that (PreviewedFiles).
 */
type PreviewWhere = { cwd: string; ignore: IgnoreRules; previewTexts?: HostTexts | undefined; previewed?: PreviewedFiles | undefined };

/**
 * What the person must see to approve the call, computed once here so no host recomputes it:
 * the tool's own preview (an edit's diff), the command with its classifier verdict and sandbox,
 * the URL, the MCP server and tool, or the paths outside the workspace. Undefined when there is
 * nothing more to show than the summary; a preview that fails is left out, never thrown.
 */
export function approvalPreview(
  tool: AnyTool,
  facts: CallFacts,
  where: PreviewWhere & { sandbox: SandboxJson },
): ApprovalPreview | undefined {
  const input = facts.input;
  const own = toolPreview(tool, input, where);
  if (own) return own;
  if (facts.command) {
    return { type: "command", command: facts.command.text, cwd: where.cwd, risk: facts.command.risk, reasons: facts.command.reasons, sandbox: where.sandbox };
  }
  if (tool.kind === "browser") {
    const action = typeof input.action === "string" ? input.action : tool.name;
    return { type: "browser", action, ...(typeof input.url === "string" ? { url: input.url } : {}) };
  }
  if (tool.kind === "mcp" && typeof input.server_name === "string") {
    const target = typeof input.tool_name === "string" ? input.tool_name : typeof input.uri === "string" ? input.uri : "";
    const args = typeof input.arguments === "object" && input.arguments !== null && !Array.isArray(input.arguments) ? (input.arguments as Record<string, unknown>) : {};
    return { type: "mcp", server: input.server_name, tool: target, arguments: args };
  }
  const outside = facts.paths.filter((p) => p.external && !p.inReadRoot).map((p) => p.absolute);
  if (outside.length > 0) return { type: "paths", paths: outside };
  return undefined;
}

/**
 * The preview an edit about to run without asking (auto-approve, yolo, a rule) carries on its
 * running update, so every host shows every edit's diff: the tool's own preview, computed once,
 * before the file changes. Undefined for other kinds, whose running needs nothing shown.
 */
export function runningPreview(tool: AnyTool, input: Record<string, unknown>, where: PreviewWhere): ApprovalPreview | undefined {
  return tool.kind === "edit" ? toolPreview(tool, input, where) : undefined;
}

/**
 * The host's text of the files an edit call changes (an editor's buffers, unsaved edits included),
 * read before the call is approved, as its execute will read them: a preview is computed where
 * nothing can wait on the host, and one from the disk would show a diff other than the one applied.
 * Undefined when the host has no files of its own (previews read the disk) or the call is no edit.
 */
export async function readPreviewTexts(tool: AnyTool, input: Record<string, unknown>, where: { cwd: string; ignore: IgnoreRules; files?: TextFiles | undefined }): Promise<HostTexts | undefined> {
  if (tool.kind !== "edit" || !tool.preview || where.files === undefined) return undefined;
  return await readHostTexts(where, editedPaths(tool, input));
}

function editedPaths(tool: AnyTool, input: Record<string, unknown>): string[] {
  // Paths it cannot name (access() throws) get no host text: their preview is left out, as one that throws is.
  return accessesOf(tool, input).flatMap((access) => (access.type === "edit" ? [access.path] : []));
}

function toolPreview(tool: AnyTool, input: Record<string, unknown>, where: PreviewWhere): ApprovalPreview | undefined {
  if (!tool.preview) return undefined;
  try {
    return tool.preview(input, { cwd: where.cwd, ignore: where.ignore, hostTexts: where.previewTexts, previewed: where.previewed });
  } catch {
    // No preview rather than no approval, or no run.
    return undefined;
  }
}
