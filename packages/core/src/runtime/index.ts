export type { Hooks } from "./hooks.js";
export type { ApprovalRequest, ApprovalResponse, Host, PlanReview } from "./host.js";
export { countSteps, estimatePlan, type PlanEstimateInput } from "./plan-estimate.js";
export { Task, type TaskOptions, type TaskResult, type TaskSnapshot, type Transition } from "./task.js";
export { defaultFocusChainSettings, type FocusChainSettings } from "./focus-chain.js";
export { repairInterrupted, resumeText, type ResumeSituation } from "./resume.js";
