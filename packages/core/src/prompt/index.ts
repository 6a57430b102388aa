export { buildSystemPrompt, continueAfterOutputLimit, noToolNudge, systemInfo, type SystemPromptInput } from "./system-prompt.js";
export * from "./rules/index.js";
export * from "./mentions/index.js";
