import type { Usage } from "./types.js";

/**
 * What a provider's raw stream chunks said that the SDK's parts lose or overwrite: the provider's
 * own stop reason (OpenRouter sends `finish_reason: "length"`, then an error chunk that the SDK
 * turns into a bare error), the usage carried by such an error chunk, and why a reply was refused
 * (Anthropic's `stop_details`). Fed every chunk's parsed JSON, on either wire.
 */
export class RawStreamFacts {
  /** The last stop reason the provider named: OpenAI `finish_reason`, Anthropic `stop_reason`. */
  stopReason: string | undefined;
  /** The last OpenAI-format `usage` object any chunk carried, error chunks included. */
  private openaiUsage: Record<string, unknown> | undefined;
  /** A refusal's category and explanation, as the provider gave them. */
  refusal: { category?: string; explanation?: string } | undefined;
  /** OpenAI's `delta.refusal` text: the model's own words declining, which the SDK does not pass on. */
  refusalText = "";
  /** OpenRouter's `delta.reasoning_details`, merged by their `index` as they streamed. */
  private details: Array<Record<string, unknown>> = [];

  observe(value: unknown): void {
    if (typeof value !== "object" || value === null) return;
    const chunk = value as Record<string, any>;
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (typeof choice?.finish_reason === "string") this.stopReason = choice.finish_reason;
    if (typeof choice?.delta?.refusal === "string") this.refusalText += choice.delta.refusal;
    if (Array.isArray(choice?.delta?.reasoning_details)) for (const detail of choice.delta.reasoning_details) this.mergeDetail(detail);
    if (typeof chunk.usage === "object" && chunk.usage !== null && typeof chunk.usage.prompt_tokens === "number") this.openaiUsage = chunk.usage;
    if (chunk.type === "message_delta" && typeof chunk.delta?.stop_reason === "string") {
      this.stopReason = chunk.delta.stop_reason;
      const details = chunk.delta.stop_details;
      if (chunk.delta.stop_reason === "refusal") {
        this.refusal = {
          ...(typeof details?.category === "string" ? { category: details.category } : {}),
          ...(typeof details?.explanation === "string" ? { explanation: details.explanation } : {}),
        };
      }
    }
  }

  /**
   * A streamed reasoning detail joins the one with its `index`: its text, summary, encrypted data and
   * signature arrive in pieces and are joined; the other fields (type, format, id) are kept as first given.
   */
  private mergeDetail(detail: unknown): void {
    if (typeof detail !== "object" || detail === null) return;
    const piece = detail as Record<string, unknown>;
    const into = this.details.find((d) => d.index === piece.index && piece.index !== undefined);
    if (!into) {
      this.details.push({ ...piece });
      return;
    }
    for (const [key, value] of Object.entries(piece)) {
      if (["text", "summary", "data", "signature"].includes(key) && typeof value === "string") into[key] = `${typeof into[key] === "string" ? into[key] : ""}${value}`;
      else if (into[key] === undefined || into[key] === null) into[key] = value;
    }
  }

  /** The reply's reasoning details as OpenRouter wants them back, or undefined when it sent none. */
  reasoningDetails(): Array<Record<string, unknown>> | undefined {
    return this.details.length > 0 ? this.details : undefined;
  }

  /**
   * True when the provider counts reasoning beside completion tokens, not among them: xAI reports
   * completion_tokens 26 and reasoning_tokens 227 with total_tokens 560 = 307 + 26 + 227, where
   * OpenAI's completion_tokens include the reasoning and its total is prompt + completion.
   */
  reasoningOutsideCompletion(): boolean {
    const u = this.openaiUsage as Record<string, any> | undefined;
    const reasoning = Number(u?.completion_tokens_details?.reasoning_tokens ?? 0);
    if (!u || !(reasoning > 0) || typeof u.total_tokens !== "number") return false;
    return u.total_tokens === Number(u.prompt_tokens) + Number(u.completion_tokens ?? 0) + reasoning;
  }

  /** OpenRouter's own figure for what the request cost (not for a bring-your-own-key request, where it is only the fee). */
  reportedCostUsd(): number | undefined {
    const u = this.openaiUsage as Record<string, any> | undefined;
    return u && typeof u.cost === "number" && Number.isFinite(u.cost) && u.cost >= 0 && u.is_byok !== true ? u.cost : undefined;
  }

  /** The usage of the last OpenAI-format usage object seen, for when the SDK dropped it with an error chunk. */
  usage(): Usage | undefined {
    const u = this.openaiUsage as Record<string, any> | undefined;
    if (!u) return undefined;
    const cacheRead = Number(u.prompt_tokens_details?.cached_tokens ?? 0) || 0;
    const reasoning = u.completion_tokens_details?.reasoning_tokens;
    return {
      inputTokens: Math.max(0, Number(u.prompt_tokens) - cacheRead),
      outputTokens: Number(u.completion_tokens ?? 0) || 0,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: 0,
      ...(typeof reasoning === "number" ? { reasoningTokens: reasoning } : {}),
    };
  }
}

/**
 * The one line that tells the person and the model a reply was refused or filtered, or undefined
 * when it was not: Anthropic's `stop_reason: refusal` with its category and explanation, OpenAI's
 * refusal text, a content filter that stopped the reply.
 */
export function refusalLine(provider: string, facts: RawStreamFacts, filtered: boolean): string | undefined {
  const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
  if (facts.refusal) {
    const category = facts.refusal.category ? ` (${facts.refusal.category})` : "";
    return `[${provider} refused this reply${category}: ${oneLine(facts.refusal.explanation ?? "no reason given")}]`;
  }
  if (facts.refusalText.trim() !== "") return `[The model refused: ${oneLine(facts.refusalText)}]`;
  if (filtered) return `[${provider}'s content filter stopped this reply.]`;
  return undefined;
}
