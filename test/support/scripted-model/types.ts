export type ScriptedContent =
  | { type: "text"; text: string }
  /** Anthropic: a thinking block with a signature. OpenAI wire: `delta.reasoning_content` (DeepSeek style). */
  | { type: "thinking"; text: string }
  /** A native tool call; an id is generated when absent. */
  | {
      type: "tool_use";
      id?: string;
      name: string;
      input: Record<string, unknown>;
      /** Streamed as the arguments instead of JSON.stringify(input): a shape stringify cannot make (nested 100,000 deep), or broken JSON. */
      inputJson?: string;
    };

export type ScriptedStopReason = "end_turn" | "max_tokens" | "tool_use" | "stop_sequence";

export type ScriptedUsage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  /** Of output_tokens, those spent thinking: OpenAI completion_tokens_details.reasoning_tokens, Anthropic output_tokens_details.thinking_tokens. Sent only when given. */
  reasoning_tokens?: number;
};

export type ScriptedFault = {
  status: number;
  /** Sent verbatim as the `retry-after` header. */
  retryAfter?: string;
  /** Replaces the whole error body: a string is sent as-is (text/plain), anything else as JSON. */
  body?: unknown;
  /** Replaces the message inside the provider's real error body. */
  message?: string;
  /** The content-type of a string `body` (default text/plain), e.g. "text/html" for a captive portal's page. */
  contentType?: string;
};

/**
 * How a stream stops at `cutAfterChars`: "reset" drops the socket (a network error), "end" closes the
 * response cleanly without a finish reason (as proxies do), "stall" goes silent with the connection open.
 */
export type ScriptedCutMode = "reset" | "end" | "stall";

export type ScriptedTurn = {
  content?: ScriptedContent[];
  /** Default: "tool_use" if any tool_use content, else "end_turn". OpenAI finish_reason: stop/length/tool_calls/stop. */
  stopReason?: ScriptedStopReason;
  /**
   * Missing fields are estimated: input_tokens ≈ request body characters / 4,
   * output_tokens ≈ content characters / 4 (at least 1), cache tokens 0.
   */
  usage?: ScriptedUsage;
  /** Text deltas are split into chunks of this many characters (default 20). Tool-call JSON is streamed in pieces too. */
  chunkSize?: number;
  /**
   * Respond with this HTTP status instead of a stream; body in the provider's real error format unless
   * given. A 200 with a string body answers what a wrong base URL or a captive portal would (empty, HTML).
   */
  fault?: ScriptedFault;
  /**
   * Stream normally, then stop once this many characters of content (text, thinking, tool-call JSON)
   * have been sent: no message_stop / [DONE], no finish. 0 cuts right after the stream opens. By default
   * the socket is destroyed; `cutMode` picks a clean close or a stall instead.
   */
  cutAfterChars?: number;
  /** What happens at `cutAfterChars` (default "reset"). */
  cutMode?: ScriptedCutMode;
  /** Wait this long before sending response headers; stops waiting when the client disconnects. */
  delayMs?: number;
  /** Pause between SSE events. */
  chunkDelayMs?: number;
};

export type Wire = "anthropic" | "openai";

export type RecordedRequest = {
  wire: Wire;
  /** The URL path without the query string, e.g. "/v1/messages". */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /**
   * The parsed JSON request body (the raw text when it was not JSON). `any` on purpose: tests read
   * provider-specific shapes (body.messages, body.system, body.tools) that we do not model here.
   */
  body: any;
};

export type ScriptedResponder = (request: RecordedRequest, index: number) => ScriptedTurn;

export interface ScriptedModelServer {
  /** http://127.0.0.1:PORT (no /v1). Anthropic: POST `${url}/v1/messages`; OpenAI: POST `${url}/v1/chat/completions`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Append turns to the queue; each request consumes the next one. */
  enqueue(...turns: ScriptedTurn[]): void;
  /** Turns not consumed yet. */
  remaining(): number;
  close(): Promise<void>;
}
