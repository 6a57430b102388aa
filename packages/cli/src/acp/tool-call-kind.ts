import type { ToolKind as AcpToolKind } from "@agentclientprotocol/sdk";

const byTool: Record<string, AcpToolKind> = {
  read_file: "read",
  read_document: "read",
  list_files: "read",
  list_code_definition_names: "read",
  access_mcp_resource: "read",
  search_files: "search",
  write_to_file: "edit",
  replace_in_file: "edit",
  execute_command: "execute",
  web_fetch: "fetch",
  browser_action: "fetch",
  ask_followup_question: "think",
  plan_mode_respond: "think",
  act_mode_respond: "think",
};

/**
 * The icon an editor shows for a call. A command that only removes or moves files is shown as
 * what it does (delete, move), so the person sees it at a glance.
 */
export function acpToolKind(name: string, input: Record<string, unknown>): AcpToolKind {
  if (name === "execute_command" && typeof input.command === "string") {
    const command = input.command.trim();
    if (/^rm\s/.test(command) && !/[;&|`$<>]/.test(command)) return "delete";
    if (/^(git\s+)?mv\s/.test(command) && !/[;&|`$<>]/.test(command)) return "move";
  }
  return byTool[name] ?? "other";
}
