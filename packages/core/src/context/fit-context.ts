import type { Message, Model } from "../model/types.js";
import { inputBudget } from "./budget.js";
import { compactConversation } from "./compact.js";
import { replaceDuplicateReads } from "./duplicate-reads.js";
import { shrinkAnsweredCalls } from "./shrink-calls.js";
import { countMessagesTokens, countTextTokens, estimateMessagesTokens } from "./token-count.js";
import { estimateTextTokens } from "./token-estimate.js";
import { truncateMiddle } from "./truncate.js";

export type CompactionStrategy = "auto" | "truncate" | "off";

export type FitResult = {
  messages: Message[];
  /** What was done, for events: nothing, duplicate reads replaced, truncation or compaction. */
  actions: Array<{ kind: "dedupe"; replaced: number } | { kind: "shrink_calls"; shrunk: number } | { kind: "truncate"; dropped: number } | { kind: "compact"; summarized: number }>;
  tokensBefore: number;
  tokensAfter: number;
};

export type FitInput = {
  messages: Message[];
  /** Tokens of what is sent besides the messages: system prompt and tool schemas. */
  fixedText: string;
  model: Model;
  /** Summarises instead of the main model when set (cheaper). */
  compactionModel?: Model;
  strategy: CompactionStrategy;
  signal: AbortSignal;
  /**
   * What the provider itself counted for this conversation: the last request's reported tokens plus
   * the messages added since. The larger of this and our own count decides (tokenizers differ).
   */
  reportedTokens?: number;
  /** Runs just before the model is asked for a summary (PreCompact hooks). */
  beforeCompact?: () => Promise<void>;
  /** Force a shrink even under the budget (a context-too-long error, /compact). */
  force?: "truncate" | "compact";
};

/**
 * The share of the budget from which tokens are counted exactly. The estimate is within 10% on
 * code, English, JSON and CJK text, and the provider's own count of the last request sets a floor,
 * so below this a conversation cannot be over the budget by the estimate's error.
 */
const exactCountsFrom = 0.7;

/**
 * Makes the conversation fit the model's window minus the reply's reserve: first older duplicate
 * reads of the same file become notes, then oversized arguments of answered calls; then the middle is compacted (auto) or dropped (truncate).
 */
export async function fitContext(input: FitInput): Promise<FitResult> {
  const budget = inputBudget(input.model.info);
  // Far from the window the estimate decides, and the exact tokenizer is never loaded.
  const estimate = Math.max(estimateTextTokens(input.fixedText) + estimateMessagesTokens(input.messages), input.reportedTokens ?? 0);
  if (!input.force && (input.strategy === "off" || estimate <= budget * exactCountsFrom)) {
    return { messages: input.messages, actions: [], tokensBefore: estimate, tokensAfter: estimate };
  }
  const fixed = await countTextTokens(input.fixedText);
  const ours = fixed + (await countMessagesTokens(input.messages));
  const tokensBefore = Math.max(ours, input.reportedTokens ?? 0);
  // When the provider counts more than we do, aim lower in our own units by the same factor.
  const scale = ours / tokensBefore;
  const result: FitResult = { messages: input.messages, actions: [], tokensBefore, tokensAfter: tokensBefore };
  if (input.strategy === "off" && !input.force) return result;
  if (tokensBefore <= budget && !input.force) return result;

  const deduped = replaceDuplicateReads(result.messages);
  if (deduped.replaced > 0) {
    result.messages = deduped.messages;
    result.actions.push({ kind: "dedupe", replaced: deduped.replaced });
    result.tokensAfter = Math.round((fixed + (await countMessagesTokens(result.messages))) / scale);
    if (result.tokensAfter <= budget && !input.force) return result;
  }

  // A big write already on disk is the cheapest thing to drop, and a summary request must not carry it.
  const shrunk = shrinkAnsweredCalls(result.messages);
  if (shrunk.shrunk > 0) {
    result.messages = shrunk.messages;
    result.actions.push({ kind: "shrink_calls", shrunk: shrunk.shrunk });
    result.tokensAfter = Math.round((fixed + (await countMessagesTokens(result.messages))) / scale);
    if (result.tokensAfter <= budget && !input.force) return result;
  }

  // Leave room to work after shrinking, so the next turns don't shrink again at once.
  const target = Math.floor(budget * 0.6 * scale) - fixed;
  const compact = input.force === "compact" || (input.force === undefined && input.strategy === "auto");
  if (compact) {
    try {
      await input.beforeCompact?.();
      const compacted = await compactConversation(result.messages, input.compactionModel ?? input.model, Math.floor(target / 2), input.signal);
      if (compacted) {
        result.messages = compacted.messages;
        result.actions.push({ kind: "compact", summarized: compacted.summarized });
        result.tokensAfter = Math.round((fixed + (await countMessagesTokens(result.messages))) / scale);
        if (result.tokensAfter <= budget) return result;
      }
    } catch (error) {
      if (input.signal.aborted) throw error;
      // A failed summary falls back to truncation below; the task goes on.
    }
  }
  const truncated = await truncateMiddle(result.messages, target);
  if (truncated.dropped > 0) {
    result.messages = truncated.messages;
    result.actions.push({ kind: "truncate", dropped: truncated.dropped });
  }
  result.tokensAfter = Math.round((fixed + (await countMessagesTokens(result.messages))) / scale);
  return result;
}
