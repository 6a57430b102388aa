import type { AgentEvent } from "../events/index.js";
import { fitContext, type CompactionStrategy } from "../context/fit-context.js";
import { estimateMessagesTokens } from "../context/token-count.js";
import type { Message, Model, Usage } from "../model/types.js";

/**
 * Keeping a task's conversation inside the model's window, from the loop's side: it remembers what
 * the provider counted for the last reply (truer than an estimate) and what the last request held
 * (for the environment line), and asks context/ to truncate or summarise when it no longer fits.
 */
export class ContextFit {
  /** The provider's own count after the last reply, and how many messages the conversation had then. */
  private reported: { tokens: number; messages: number } | undefined;
  /** Tokens the last request held (system prompt, tools and messages), for the environment line. */
  private tokens = 0;

  constructor(private readonly settings: { compactionModel: Model | undefined; strategy: CompactionStrategy }) {}

  get contextTokens(): number {
    return this.tokens;
  }

  /** A reply came back: its usage is the provider's count of the conversation as it was (`messageCount` messages). */
  noteReply(usage: Usage, messageCount: number): void {
    this.reported = { tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens, messages: messageCount };
  }

  /** The conversation shrunk to fit, with the event that says so; undefined when it fits as it is. */
  async fit(
    messages: Message[],
    request: { fixedText: string; model: Model },
    run: { force?: "truncate" | "compact"; beforeCompact?: () => Promise<void>; signal: AbortSignal },
  ): Promise<{ messages: Message[]; boundary: AgentEvent } | undefined> {
    const reported = this.reported && this.reported.messages <= messages.length ? this.reported : undefined;
    // The provider's count of the last request, plus an estimate of what was added since.
    const reportedTokens = reported ? reported.tokens + estimateMessagesTokens(messages.slice(reported.messages)) : undefined;
    const fitted = await fitContext({
      ...(reportedTokens !== undefined ? { reportedTokens } : {}),
      ...(run.beforeCompact ? { beforeCompact: run.beforeCompact } : {}),
      messages,
      fixedText: request.fixedText,
      model: request.model,
      ...(this.settings.compactionModel ? { compactionModel: this.settings.compactionModel } : {}),
      strategy: this.settings.strategy,
      signal: run.signal,
      ...(run.force ? { force: run.force } : {}),
    });
    this.tokens = fitted.tokensAfter;
    if (fitted.actions.length === 0) return undefined;
    this.reported = undefined; // the conversation changed shape; recount from scratch
    const trigger = run.force === "compact" ? "manual" : "auto";
    return {
      messages: fitted.messages,
      boundary: { type: "system", subtype: "compact_boundary", compact_metadata: { trigger, pre_tokens: fitted.tokensBefore, post_tokens: fitted.tokensAfter, actions: fitted.actions.map((a) => a.kind) } },
    };
  }
}
