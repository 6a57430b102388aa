import { actModeRespondTool } from "./act-mode-respond.js";
import { askFollowupQuestionTool } from "./ask-followup-question.js";
import { attemptCompletionTool } from "./attempt-completion.js";
import { browserActionTool } from "./browser-action.js";
import { executeCommandTool } from "./execute-command.js";
import { listCodeDefinitionNamesTool } from "./list-code-definition-names.js";
import { listFilesTool } from "./list-files.js";
import { planModeRespondTool } from "./plan-mode-respond.js";
import { readFileTool } from "./read-file.js";
import { replaceInFileTool } from "./replace-in-file.js";
import { searchFilesTool } from "./search-files.js";
import { webFetchTool } from "./web-fetch.js";
import type { AnyTool } from "./tool.js";
import { writeToFileTool } from "./write-to-file.js";

/** Every built-in tool, in the order the model sees them. */
export const allTools: readonly AnyTool[] = [
  readFileTool,
  listFilesTool,
  searchFilesTool,
  listCodeDefinitionNamesTool,
  writeToFileTool,
  replaceInFileTool,
  executeCommandTool,
  browserActionTool,
  webFetchTool,
  askFollowupQuestionTool,
  planModeRespondTool,
  actModeRespondTool,
  attemptCompletionTool,
];
