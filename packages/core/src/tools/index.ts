export { defineTool, type AnyTool, type Mode, type Tool, type ToolAccess, type ToolContext, type ToolKind, type ToolResult } from "./tool.js";
export { allTools } from "./registry.js";
export { boundText, runTool, validateInput } from "./run-tool.js";
export { askFollowupQuestionTool } from "./ask-followup-question.js";
export { attemptCompletionTool } from "./attempt-completion.js";
export { listFilesTool } from "./list-files.js";
export { readFileTool } from "./read-file.js";
export { writeToFileTool } from "./write-to-file.js";
export { testContext } from "./test-context.js";
