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
export { applyToolCallEvent, type ToolCallRecord } from "./tool-call-record.js";
