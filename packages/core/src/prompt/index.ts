export { buildSystemPrompt, continueAfterOutputLimit, noToolNudge, systemInfo, type SystemPromptInput } from "./system-prompt.js";
export * from "./rules/index.js";
export * from "./mentions/index.js";
export { builtinSlashCommands, findWorkflow, listWorkflows, parseSlashCommand, unknownCommandText, workflowParts, type SlashCommand } from "./slash-commands.js";
export { environmentLine, initialEnvironment, type EnvironmentSnapshot } from "./environment.js";
export { imagesRefused, ImageAttachmentError, loadImageAttachment } from "./image-attachment.js";
export { checklistText, parseChecklist, type TaskProgressItem } from "./focus-chain-text.js";
export { loadAgentDefinitions, parseDefinition, projectAgentsConfig, projectAgentsDir, type AgentDefinition, type LoadedAgentDefinitions } from "./agent-definitions.js";
export * from "./skills/index.js";
