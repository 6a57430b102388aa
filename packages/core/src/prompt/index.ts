export { buildSystemPrompt, continueAfterOutputLimit, noToolNudge, systemInfo, type SystemPromptInput } from "./system-prompt.js";
