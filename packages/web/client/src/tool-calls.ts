// The page folds tool call events with core's own reducer (a pure module), so a card's status
// is what core says it is, never inferred here.
export { applyToolCallEvent, type ToolCallRecord } from "../../../core/src/events/tool-call-record.ts";
export type { AgentEvent, ApprovalPreview } from "../../../core/src/events/agent-event.ts";
export type { Mode } from "../../../core/src/policy/mode.ts";
