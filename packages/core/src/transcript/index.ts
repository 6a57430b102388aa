export { changedItems } from "./changed-items.js";
export { conversationCalls } from "./conversation-calls.js";
export { cardOf, endReplay, foldEvent, initialTranscript, marksAStep } from "./fold.js";
export type {
  AssistantItem,
  Awaiting,
  ChecklistItem,
  NoticeEvent,
  ResultEvent,
  StreamingCall,
  ToolCard,
  Transcript,
  TranscriptCheckpoint,
  TranscriptItem,
  TranscriptMode,
  TranscriptStatus,
  TranscriptUsage,
} from "./types.js";
export type { DiagnosticsRecord, SubagentRecord } from "../events/tool-call-record.js";
export type { AgentEvent } from "../events/agent-event.js";
export { describeEstimate, formatUsd, type EstimateRange, type PlanEstimate } from "../events/plan-estimate.js";
