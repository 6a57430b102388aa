import { actModeRespondTool } from "./act-mode-respond.js";
import { askFollowupQuestionTool } from "./ask-followup-question.js";
import { attemptCompletionTool } from "./attempt-completion.js";
import { listFilesTool } from "./list-files.js";
import { planModeRespondTool } from "./plan-mode-respond.js";
import { readFileTool } from "./read-file.js";
import type { AnyTool } from "./tool.js";
import { writeToFileTool } from "./write-to-file.js";

/** Every built-in tool, in the order the model sees them. */
export const allTools: readonly AnyTool[] = [
  readFileTool,
  listFilesTool,
  writeToFileTool,
  askFollowupQuestionTool,
  planModeRespondTool,
  actModeRespondTool,
  attemptCompletionTool,
];
