export type ModelErrorKind =
  | "rate_limit"
  | "overloaded"
  | "server"
  | "network"
  | "stream_cut"
  | "timeout"
  | "context_window"
  | "auth"
  | "not_found"
  | "bad_request"
  /**
   * The provider refused the model's own output, not the request (Groq's `tool_use_failed`: the
   * model wrote a call that does not fit its tool's schema). Another sample of the same request
   * usually comes out right, so it is retried.
   */
  | "bad_output"
  /** The server answered, but not as an API does (an empty 200, an HTML page): a wrong base URL or a captive portal. */
  | "bad_response"
  /** Nothing to talk to: a local server that is not running, a host name that does not resolve. */
  | "unreachable"
  /** A setting no retry can cure: a port fetch refuses, https:// to a plain http server, an untrusted certificate, a key that cannot be sent. */
  | "config"
  | "aborted";

const retryableKinds: ReadonlySet<ModelErrorKind> = new Set([
  "rate_limit",
  "overloaded",
  "server",
  "network",
  "stream_cut",
  "timeout",
  "bad_output",
]);

/** Every failure of a model request, classified once at the provider edge. */
export class ModelError extends Error {
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  /** From `retry-after` / `retry-after-ms`, when the server sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(kind: ModelErrorKind, message: string, opts: { status?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = "ModelError";
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }

  get retryable(): boolean {
    return retryableKinds.has(this.kind);
  }
}

/** The request did not fit the model's context window; the context layer can shrink it and try again. */
export class ContextWindowExceededError extends ModelError {
  constructor(message: string, status?: number) {
    super("context_window", message, status === undefined ? {} : { status });
    this.name = "ContextWindowExceededError";
  }
}
