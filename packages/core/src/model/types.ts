/**
 * The conversation as Cairn stores it, and the one-method model interface the loop talks to.
 * Providers translate these shapes to and from their wire formats; nothing else does.
 */

export type TextPart = { type: "text"; text: string };
export type ImagePart = { type: "image"; mediaType: string; data: string /* base64 */ };
/**
 * One thinking block. `signature` is the provider's seal over it (Anthropic checks it when the block
 * is sent back). A redacted block (Anthropic's encrypted `redacted_thinking`) has no text, and its
 * data travels as the signature behind `redactedThinkingMark`: it must go back unchanged, and it
 * passes through every layer that keeps a block's signature.
 */
export type ReasoningPart = { type: "reasoning"; text: string; signature?: string };

/** Marks a ReasoningPart's signature as a redacted block's data (base64 signatures never contain ':' or '_'). */
export const redactedThinkingMark = "redacted_thinking:";
/**
 * Marks a ReasoningPart's signature as OpenRouter's `reasoning_details` for the reply (a JSON array,
 * merged from the stream's deltas), which OpenRouter needs back unchanged with the assistant message
 * to continue the model's reasoning (a signed Claude block, an encrypted OpenAI one).
 */
export const reasoningDetailsMark = "reasoning_details:";
/**
 * `id` is Cairn's (model/call-ids.ts): events, the journal and hosts key the call by it.
 * `providerId` is the provider's own, kept only to send the call back to the provider.
 */
export type ToolCallPart = { type: "tool-call"; id: string; providerId?: string; name: string; input: Record<string, unknown> };
export type ToolResultPart = {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  content: Array<TextPart | ImagePart>;
  isError: boolean;
};

export type UserMessage = { role: "user"; content: Array<TextPart | ImagePart | ToolResultPart> };
export type AssistantMessage = { role: "assistant"; content: Array<TextPart | ReasoningPart | ToolCallPart> };
export type Message = UserMessage | AssistantMessage;

/** A tool as the provider's native function calling sees it. */
export type ToolSpec = { name: string; description: string; inputSchema: Record<string, unknown> };

export type ModelRequest = {
  system: string;
  messages: Message[];
  /** Present only for the native tool-call protocol. */
  tools?: ToolSpec[];
  maxOutputTokens?: number;
};

export type FinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "other";

export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of the output, the tokens the model spent thinking (as the provider reports them, or estimated from the reasoning text). */
  reasoningTokens?: number;
  /** The server reported no usage, so these counts are estimated from the characters sent and received. */
  estimated?: boolean;
  /** What the provider itself says the request cost in USD (OpenRouter's `usage.cost`), which beats any price table. */
  reportedCostUsd?: number;
};

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    ...(a.reasoningTokens !== undefined || b.reasoningTokens !== undefined ? { reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0) } : {}),
    ...(a.estimated || b.estimated ? { estimated: true } : {}),
    ...(a.reportedCostUsd !== undefined && b.reportedCostUsd !== undefined ? { reportedCostUsd: a.reportedCostUsd + b.reportedCostUsd } : {}),
  };
}

/** What a model stream yields. Errors are thrown as `ModelError`. */
export type ModelEvent =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string; signature?: string }
  /** `id`: Cairn's id of the call (model/call-ids.ts); `providerId`: the provider's, for the wire only. */
  | { type: "tool-call-start"; id: string; name: string }
  | { type: "tool-call-delta"; id: string; argsText: string }
  | { type: "tool-call"; id: string; providerId?: string; name: string; argsText: string }
  | { type: "finish"; reason: FinishReason; usage: Usage };

/** Price in US dollars per million tokens. */
export type Pricing = { input: number; output: number; cacheRead?: number; cacheWrite?: number };

export type ModelInfo = {
  contextWindow: number;
  maxOutputTokens: number;
  pricing?: Pricing;
  supportsImages: boolean;
  /** Tool calls through the provider's function calling (true) or Cairn's XML protocol (false); unset: the provider's default. */
  nativeTools?: boolean;
  /** Whether the model reasons: false never asks it to (even with --effort); an effort is asked for when no other is set. */
  reasoning?: boolean | "low" | "medium" | "high";
};

export type ProviderId =
  | "anthropic"
  | "openai"
  | "openai-compatible"
  | "openrouter"
  | "ollama"
  | "lmstudio"
  | "deepseek";

/** A model is one method. */
export interface Model {
  readonly provider: ProviderId;
  readonly id: string;
  readonly info: ModelInfo;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}
