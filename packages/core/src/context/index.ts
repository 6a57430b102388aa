export { inputBudget } from "./budget.js";
export { compactConversation, compactionSystemPrompt } from "./compact.js";
export { replaceDuplicateReads } from "./duplicate-reads.js";
export { fitContext, type CompactionStrategy, type FitResult } from "./fit-context.js";
export { countMessagesTokens, countMessageTokens, countTextTokens, estimateMessagesTokens, estimateMessageTokens } from "./token-count.js";
export { estimateTextTokens } from "./token-estimate.js";
export { truncateMiddle } from "./truncate.js";
