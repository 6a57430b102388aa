import type { ScriptedStopReason } from "./types.js";
import { charCount, type SseFrame, type TurnPlan } from "./turn-plan.js";

/** The real API's message for a prompt over the context window (default body of a 400 fault). */
export const openaiContextWindowMessage =
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens. Please reduce the length of the messages.";

const finishReasons: Record<ScriptedStopReason, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
};

type ChunkDelta = {
  role?: "assistant";
  content?: string;
  reasoning_content?: string;
  refusal?: null;
  tool_calls?: Array<{ index: number; id?: string; type?: "function"; function: { name?: string; arguments: string } }>;
};

/**
 * Chat Completions streaming chunks. With `includeUsage` (the request's stream_options.include_usage)
 * every chunk carries `usage: null` and a last chunk with `choices: []` carries the usage, as the real API does.
 */
export function openaiStreamFrames(plan: TurnPlan, options: { includeUsage: boolean }): SseFrame[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: completionId(plan),
    object: "chat.completion.chunk",
    created,
    model: plan.model,
    system_fingerprint: "fp_scripted",
    choices,
    ...(options.includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const deltaFrame = (delta: ChunkDelta, contentChars = 0) =>
    data(chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]), contentChars);

  const frames: SseFrame[] = [deltaFrame({ role: "assistant", content: "", refusal: null })];
  let toolCallIndex = 0;
  for (const block of plan.blocks) {
    switch (block.type) {
      case "text":
        for (const content of block.pieces) frames.push(deltaFrame({ content }, charCount(content)));
        break;
      case "thinking":
        for (const reasoning_content of block.pieces) frames.push(deltaFrame({ reasoning_content }, charCount(reasoning_content)));
        break;
      case "tool_use": {
        const index = toolCallIndex++;
        frames.push(deltaFrame({ tool_calls: [{ index, id: block.id, type: "function", function: { name: block.name, arguments: "" } }] }));
        for (const piece of block.pieces) {
          frames.push(deltaFrame({ tool_calls: [{ index, function: { arguments: piece } }] }, charCount(piece)));
        }
        break;
      }
    }
  }
  const finishChoice = { index: 0, delta: {}, logprobs: null, finish_reason: finishReasons[plan.stopReason] };
  frames.push(data(chunk([finishChoice]), 0, true));
  if (options.includeUsage) frames.push(data(chunk([], { usage: openaiUsage(plan) }), 0, true));
  frames.push({ text: "data: [DONE]\n\n", contentChars: 0, final: true });
  return frames;
}

/** The non-streaming Chat Completions response. */
export function openaiCompletion(plan: TurnPlan): Record<string, unknown> {
  const text = plan.blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const reasoning = plan.blocks.flatMap((block) => (block.type === "thinking" ? [block.text] : [])).join("");
  const toolCalls = plan.blocks.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id, type: "function", function: { name: block.name, arguments: block.json } }] : [],
  );
  return {
    id: completionId(plan),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: plan.model,
    system_fingerprint: "fp_scripted",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text.length > 0 ? text : null,
          ...(reasoning.length > 0 ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          refusal: null,
        },
        logprobs: null,
        finish_reason: finishReasons[plan.stopReason],
      },
    ],
    usage: openaiUsage(plan),
  };
}

/**
 * OpenAI counts cached tokens inside prompt_tokens; Anthropic-style cache writes have no OpenAI
 * equivalent, so they are folded into prompt_tokens as ordinary input.
 */
function openaiUsage(plan: TurnPlan): Record<string, unknown> {
  const { input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens } = plan.usage;
  const promptTokens = input_tokens + cache_read_input_tokens + cache_creation_input_tokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: output_tokens,
    total_tokens: promptTokens + output_tokens,
    prompt_tokens_details: { cached_tokens: cache_read_input_tokens },
    ...(plan.usage.reasoning_tokens > 0 ? { completion_tokens_details: { reasoning_tokens: plan.usage.reasoning_tokens } } : {}),
  };
}

/** The real error body for an HTTP status; the default 400 is a context-window error. */
export function openaiErrorBody(status: number, message?: string): Record<string, unknown> {
  const known = openaiErrors[status];
  const type = known?.type ?? (status >= 500 ? "server_error" : "invalid_request_error");
  const fallback = known?.message ?? `Request failed with status ${status}`;
  // A 400 with a custom message is a generic invalid request, not a context-window error.
  const code = status === 400 && message !== undefined ? null : (known?.code ?? null);
  return { error: { message: message ?? fallback, type, param: status === 400 && code ? "messages" : null, code } };
}

const openaiErrors: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: "invalid_request_error", code: "context_length_exceeded", message: openaiContextWindowMessage },
  401: {
    type: "invalid_request_error",
    code: "invalid_api_key",
    message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
  },
  404: { type: "invalid_request_error", code: "model_not_found", message: "The model does not exist or you do not have access to it." },
  429: {
    type: "requests",
    code: "rate_limit_exceeded",
    message: "Rate limit reached for requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 7s.",
  },
  500: { type: "server_error", code: null, message: "The server had an error while processing your request. Sorry about that!" },
  503: { type: "server_error", code: null, message: "The engine is currently overloaded, please try again later" },
  529: { type: "server_error", code: null, message: "The engine is currently overloaded, please try again later" },
};

function completionId(plan: TurnPlan): string {
  return `chatcmpl-scripted-${plan.requestNumber}`;
}

function data(payload: unknown, contentChars = 0, final = false): SseFrame {
  return { text: `data: ${JSON.stringify(payload)}\n\n`, contentChars, final };
}
