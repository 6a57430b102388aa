import type { PermissionOption, RequestPermissionOutcome, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { ApprovalRequest, ApprovalResponse } from "@cairn/core";
import { previewContent } from "./session-updates.js";
import { acpToolKind } from "./tool-call-kind.js";

/** What an approval asks about: the request as core computed it (the diff, the command, the rule "always" would add). */
type Asked = Pick<ApprovalRequest, "tool_use_id" | "summary" | "preview" | "protected" | "suggested_rule">;

/** allow once / always / reject once / always; no "always" for a protected file, which is asked about every time. */
export function permissionOptions(asked: Asked): PermissionOption[] {
  const rule = asked.protected ? undefined : asked.suggested_rule;
  return [
    { optionId: "allow_once", name: "Allow", kind: "allow_once" },
    ...(rule ? [{ optionId: "allow_always", name: `Always allow ${rule} in this workspace`, kind: "allow_always" as const }] : []),
    { optionId: "reject_once", name: "Reject", kind: "reject_once" },
    { optionId: "reject_always", name: "Reject, and don't ask again in this session", kind: "reject_always" },
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

/** The editor's choice as core's answer. A cancelled prompt refuses the call. */
export function answerFrom(outcome: RequestPermissionOutcome): ApprovalResponse & { rejectAlways: boolean } {
  if (outcome.outcome !== "selected") return { approved: false, feedback: "The person cancelled the request.", rejectAlways: false };
  switch (outcome.optionId) {
    case "allow_once":
      return { approved: true, rejectAlways: false };
    case "allow_always":
      return { approved: true, remember: "workspace", rejectAlways: false };
    case "reject_always":
      return { approved: false, rejectAlways: true };
    default:
      return { approved: false, rejectAlways: false };
  }
}
