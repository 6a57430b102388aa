export type { AgentEvent, AgentEventType, ApprovalCategory, AssistantContentJson, ResultSubtype, SandboxJson, UsageJson } from "./events.js";
export type { Hooks } from "./hooks.js";
export type { ApprovalRequest, ApprovalResponse, Host } from "./host.js";
export { Task, type TaskOptions, type TaskResult, type TaskSnapshot, type Transition } from "./task.js";
export type { TaskJournal, TaskState } from "./journal.js";
export { repairInterrupted, resumeText, type PendingResult, type ResumeSituation } from "./resume.js";
