export { inputBudget } from "./budget.js";
export { compactConversation, compactionSystemPrompt } from "./compact.js";
export { replaceDuplicateReads } from "./duplicate-reads.js";
export { fitContext, type CompactionStrategy, type FitResult } from "./fit-context.js";
export { countMessagesTokens, countMessageTokens, countTextTokens } from "./token-count.js";
export { truncateMiddle } from "./truncate.js";
