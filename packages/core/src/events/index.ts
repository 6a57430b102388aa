export type {
  AgentEvent,
  AgentEventType,
  ApprovalJson,
  ApprovalPreview,
  AssistantContentJson,
  Decision,
  ProblemJson,
  ResultSubtype,
  SandboxJson,
  ToolCallEnd,
  ToolCallStatus,
  ToolKind,
  UsageJson,
} from "./agent-event.js";
export { foldToolCall, MAX_CARD_OUTPUT_CHARS, type DiagnosticsRecord, type SubagentRecord, type ToolCallRecord } from "./tool-call-record.js";
export { describeEstimate, formatUsd, type EstimateRange, type PlanEstimate } from "./plan-estimate.js";
