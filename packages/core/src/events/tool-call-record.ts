import type { AgentEvent, ApprovalJson, ApprovalPreview, Decision, ToolCallStatus, ToolKind } from "./agent-event.js";

/** One tool call as a host shows it, folded from its events. */
export type ToolCallRecord = {
  tool_use_id: string;
  name: string;
  kind: ToolKind | "unknown";
  input: Record<string, unknown>;
  summary: string;
  status: ToolCallStatus;
  approval?: ApprovalJson;
  /** What the call would do, as core previewed it once: its approval's preview, or an edit's diff from its running update. */
  preview?: ApprovalPreview;
  decision?: Decision;
  /** Live output so far (command output). */
  output: string;
  /** The result the model got, once the call has ended. */
  content?: string;
  is_error?: boolean;
};

/**
 * Folds one event into the records of tool calls, keyed by tool_use_id. Pure: always returns a
 * new map and leaves the given one as it was. Hosts read a call's status from here
 * instead of inferring it from other events. Updates for a call never announced are ignored.
 */
export function applyToolCallEvent(records: ReadonlyMap<string, ToolCallRecord>, event: AgentEvent): Map<string, ToolCallRecord> {
  const next = new Map(records);
  switch (event.type) {
    case "tool_call":
      next.set(event.tool_use_id, {
        tool_use_id: event.tool_use_id,
        name: event.name,
        kind: event.kind,
        input: event.input,
        summary: event.summary,
        status: "pending",
        output: "",
      });
      return next;
    case "tool_output": {
      const record = records.get(event.tool_use_id);
      if (record) next.set(event.tool_use_id, { ...record, output: record.output + event.text });
      return next;
    }
    case "tool_call_update": {
      const record = records.get(event.tool_use_id);
      if (!record) return next;
      if (event.status === "awaiting_approval") {
        next.set(event.tool_use_id, { ...record, status: event.status, approval: event.approval, ...(event.approval.preview ? { preview: event.approval.preview } : {}) });
      } else if (event.status === "running") {
        next.set(event.tool_use_id, { ...record, status: event.status, ...(event.decision ? { decision: event.decision } : {}), ...(event.preview ? { preview: event.preview } : {}) });
      } else {
        next.set(event.tool_use_id, {
          ...record,
          status: event.status,
          content: event.content,
          is_error: event.is_error,
          ...(event.decision ? { decision: event.decision } : {}),
        });
      }
      return next;
    }
    default:
      return next;
  }
}
