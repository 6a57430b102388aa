import type { PermissionOption, RequestPermissionOutcome, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { ApprovalRequest, ApprovalResponse } from "@cairn/core";
import { previewContent } from "./tool-card.js";
import { acpToolKind } from "./tool-call-kind.js";

/** What an approval asks about: the request as core computed it (the diff, the command, the rule "always" would add). */
type Asked = Pick<ApprovalRequest, "tool_use_id" | "summary" | "preview" | "protected" | "suggested_rule">;

/**
 * The optionIds Cairn answers a permission request with. They are a contract: an editor (or a
 * person's keybinding) may pick one by id, so they never change meaning. "allow_always" kept its
 * id from before the task scope existed, and still saves the rule for the workspace.
 */
const PERMISSION_OPTION_IDS = {
  allowOnce: "allow_once",
  allowForTask: "allow_always_task",
  allowForWorkspace: "allow_always",
  rejectOnce: "reject_once",
  rejectAlways: "reject_always",
} as const;

const ids = PERMISSION_OPTION_IDS;

/**
 * Allow once; always allow the rule core suggests, for this task (kept with it, shared with its
 * sub-agents) or for this workspace (CAIRN_HOME/permissions.json), both of kind allow_always and
 * named with the rule, so the person sees what they allow; reject once / always. No "always" for a
 * protected file, which is asked about every time, nor without a rule to remember.
 */
export function permissionOptions(asked: Asked): PermissionOption[] {
  const rule = asked.protected ? undefined : asked.suggested_rule;
  const always: PermissionOption[] = rule
    ? [
        { optionId: ids.allowForTask, name: `Always allow ${rule} in this task`, kind: "allow_always" },
        { optionId: ids.allowForWorkspace, name: `Always allow ${rule} in this workspace`, kind: "allow_always" },
      ]
    : [];
  return [
    { optionId: ids.allowOnce, name: "Allow", kind: "allow_once" },
    ...always,
    { optionId: ids.rejectOnce, name: "Reject", kind: "reject_once" },
    { optionId: ids.rejectAlways, name: "Reject, and don't ask again in this session", kind: "reject_always" },
  ];
}

export function permissionRequest(sessionId: string, request: ApprovalRequest, cwd: string): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: {
      toolCallId: request.tool_use_id,
      title: request.summary,
      kind: acpToolKind(request.tool, request.input),
      status: "pending",
      content: previewContent(request.preview, request.summary, cwd),
      rawInput: request.input,
    },
    options: permissionOptions(request),
  };
}

/** What the session makes of the editor's choice: core's answer, "reject always", and an id it never offered (refused). */
export type PermissionAnswer = ApprovalResponse & { rejectAlways: boolean; unoffered?: string };

/**
 * The editor's choice as core's answer. Only an id this request offered can allow: a cancelled
 * prompt refuses the call, and so does any other id (an "always" the request did not offer, as on
 * a protected file, or one made up), reported in `unoffered` so the session can log it.
 */
export function answerFrom(outcome: RequestPermissionOutcome, offered: readonly PermissionOption[]): PermissionAnswer {
  if (outcome.outcome !== "selected") return { approved: false, feedback: "The person cancelled the request.", rejectAlways: false };
  if (!offered.some((o) => o.optionId === outcome.optionId)) return { approved: false, rejectAlways: false, unoffered: outcome.optionId };
  switch (outcome.optionId) {
    case ids.allowOnce:
      return { approved: true, rejectAlways: false };
    case ids.allowForTask:
      return { approved: true, remember: "task", rejectAlways: false };
    case ids.allowForWorkspace:
      return { approved: true, remember: "workspace", rejectAlways: false };
    case ids.rejectAlways:
      return { approved: false, rejectAlways: true };
    default:
      return { approved: false, rejectAlways: false };
  }
}
