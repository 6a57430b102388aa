export type ScriptedContent =
  | { type: "text"; text: string }
  /** Anthropic: a thinking block with a signature. OpenAI wire: `delta.reasoning_content` (DeepSeek style). */
  | { type: "thinking"; text: string }
  /** A native tool call; an id is generated when absent. */
  | { type: "tool_use"; id?: string; name: string; input: Record<string, unknown> };

export type ScriptedStopReason = "end_turn" | "max_tokens" | "tool_use" | "stop_sequence";

export type ScriptedUsage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
};

export type ScriptedFault = {
  status: number;
  /** Sent verbatim as the `retry-after` header. */
  retryAfter?: string;
  /** Replaces the whole error body: a string is sent as-is (text/plain), anything else as JSON. */
  body?: unknown;
  /** Replaces the message inside the provider's real error body. */
  message?: string;
};

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
  /** Respond with this HTTP error instead of a stream; body in the provider's real error format unless given. */
  fault?: ScriptedFault;
  /**
   * Stream normally, then destroy the socket once this many characters of content (text, thinking,
   * tool-call JSON) have been sent: no message_stop / [DONE], no finish. 0 cuts right after the stream opens.
   */
  cutAfterChars?: number;
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
