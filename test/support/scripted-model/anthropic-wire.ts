import { charCount, type PlannedBlock, type SseFrame, type TurnPlan } from "./turn-plan.js";

/** The real API's message for a prompt over the context window (default body of a 400 fault). */
export const anthropicContextWindowMessage = "prompt is too long: 250000 tokens > 200000 maximum";

/** The real API sends a ping right after message_start and now and then while streaming. */
const deltasBetweenPings = 8;

/** Messages API streaming events, in the order and shape the real API sends them. */
export function anthropicStreamFrames(plan: TurnPlan): SseFrame[] {
  const frames: SseFrame[] = [
    event("message_start", {
      type: "message_start",
      message: {
        id: messageId(plan),
        type: "message",
        role: "assistant",
        model: plan.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: plan.usage.input_tokens,
          cache_creation_input_tokens: plan.usage.cache_creation_input_tokens,
          cache_read_input_tokens: plan.usage.cache_read_input_tokens,
          output_tokens: 1,
        },
      },
    }),
    event("ping", { type: "ping" }),
  ];
  let deltasSincePing = 0;
  plan.blocks.forEach((block, index) => {
    frames.push(event("content_block_start", { type: "content_block_start", index, content_block: blockStart(block) }));
    for (const delta of blockDeltas(block)) {
      frames.push(event("content_block_delta", { type: "content_block_delta", index, delta }, deltaChars(delta)));
      deltasSincePing += 1;
      if (deltasSincePing === deltasBetweenPings) {
        frames.push(event("ping", { type: "ping" }));
        deltasSincePing = 0;
      }
    }
    frames.push(event("content_block_stop", { type: "content_block_stop", index }));
  });
  frames.push(
    event(
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: plan.stopReason, stop_sequence: plan.stopSequence },
        usage: {
          output_tokens: plan.usage.output_tokens,
          ...(plan.usage.reasoning_tokens > 0 ? { output_tokens_details: { thinking_tokens: plan.usage.reasoning_tokens } } : {}),
        },
      },
      0,
      true,
    ),
    event("message_stop", { type: "message_stop" }, 0, true),
  );
  return frames;
}

/** The non-streaming Messages API response. */
export function anthropicMessage(plan: TurnPlan): Record<string, unknown> {
  return {
    id: messageId(plan),
    type: "message",
    role: "assistant",
    model: plan.model,
    content: plan.blocks.map((block) => {
      switch (block.type) {
        case "text":
          return { type: "text", text: block.text };
        case "thinking":
          return { type: "thinking", thinking: block.text, signature: block.signature };
        case "tool_use":
          return { type: "tool_use", id: block.id, name: block.name, input: block.input };
      }
    }),
    stop_reason: plan.stopReason,
    stop_sequence: plan.stopSequence,
    usage: anthropicUsage(plan),
  };
}

function anthropicUsage(plan: TurnPlan): Record<string, unknown> {
  const { reasoning_tokens, ...usage } = plan.usage;
  return reasoning_tokens > 0 ? { ...usage, output_tokens_details: { thinking_tokens: reasoning_tokens } } : usage;
}

/** The real error body for an HTTP status; the default 400 is a context-window error. */
export function anthropicErrorBody(status: number, message?: string): Record<string, unknown> {
  const known = anthropicErrors[status];
  const type = known?.type ?? (status >= 500 ? "api_error" : "invalid_request_error");
  const fallback = known?.message ?? (status >= 500 ? "Internal server error" : `Request failed with status ${status}`);
  return { type: "error", error: { type, message: message ?? fallback } };
}

const anthropicErrors: Record<number, { type: string; message: string }> = {
  400: { type: "invalid_request_error", message: anthropicContextWindowMessage },
  401: { type: "authentication_error", message: "invalid x-api-key" },
  403: { type: "permission_error", message: "Your API key does not have permission to use the specified resource." },
  404: { type: "not_found_error", message: "The requested resource could not be found." },
  413: { type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." },
  429: {
    type: "rate_limit_error",
    message:
      "This request would exceed the rate limit for your organization of 50 requests per minute. Please try again later.",
  },
  500: { type: "api_error", message: "Internal server error" },
  529: { type: "overloaded_error", message: "Overloaded" },
};

function messageId(plan: TurnPlan): string {
  return `msg_scripted_${plan.requestNumber}`;
}

function blockStart(block: PlannedBlock): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: {} };
  }
}

type Delta =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "input_json_delta"; partial_json: string };

function blockDeltas(block: PlannedBlock): Delta[] {
  switch (block.type) {
    case "text":
      return block.pieces.map((text) => ({ type: "text_delta", text }));
    case "thinking":
      return [
        ...block.pieces.map((thinking): Delta => ({ type: "thinking_delta", thinking })),
        { type: "signature_delta", signature: block.signature },
      ];
    case "tool_use":
      // The real API opens every tool input with an empty partial_json.
      return [
        { type: "input_json_delta", partial_json: "" },
        ...block.pieces.map((partial_json): Delta => ({ type: "input_json_delta", partial_json })),
      ];
  }
}

function deltaChars(delta: Delta): number {
  switch (delta.type) {
    case "text_delta":
      return charCount(delta.text);
    case "thinking_delta":
      return charCount(delta.thinking);
    case "input_json_delta":
      return charCount(delta.partial_json);
    case "signature_delta":
      return 0;
  }
}

function event(name: string, data: unknown, contentChars = 0, final = false): SseFrame {
  return { text: `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`, contentChars, final };
}
