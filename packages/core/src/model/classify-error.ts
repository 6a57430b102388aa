import { APICallError } from "@ai-sdk/provider";
import { ContextWindowExceededError, ModelError } from "./errors.js";
import { parseRetryAfter } from "./retry.js";

const contextWindowPattern =
  /prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|context window|too many tokens|input is too long|reduce the length/i;

const networkCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT"]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Turns whatever a provider threw into a ModelError, once, at the edge.
 * `streamStarted` tells a broken connection mid-stream (stream_cut) from one that never answered.
 */
export function classifyModelError(error: unknown, streamStarted: boolean, signal?: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  if (signal?.aborted || (error instanceof Error && error.name === "AbortError")) {
    return new ModelError("aborted", "The request was aborted.", { cause: error });
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const body = error.responseBody ?? "";
    const detail = `${error.message}${body && !error.message.includes(body.slice(0, 80)) ? ` ${body.slice(0, 300)}` : ""}`;
    const retryAfterMs = parseRetryAfter(error.responseHeaders);
    const opts = { cause: error, ...(status === undefined ? {} : { status }), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    // No status, or a 2xx whose body broke while being read: the connection failed, not the request.
    if (status === undefined || (status >= 200 && status < 300)) {
      return new ModelError(streamStarted ? "stream_cut" : "network", detail, { cause: error });
    }
    if (contextWindowPattern.test(detail) && (status === 400 || status === 413)) return new ContextWindowExceededError(detail, status);
    if (status === 429) return new ModelError("rate_limit", detail, opts);
    if (status === 529 || /overloaded/i.test(body)) return new ModelError("overloaded", detail, opts);
    if (status === 408) return new ModelError("timeout", detail, opts);
    if (status >= 500) return new ModelError("server", detail, opts);
    if (status === 401 || status === 403) return new ModelError("auth", `${detail} Check the API key for this provider.`, opts);
    return new ModelError("bad_request", detail, opts);
  }
  const message = messageOf(error);
  if (contextWindowPattern.test(message)) return new ContextWindowExceededError(message);
  const code = errorCode(error);
  const looksNetwork =
    (code !== undefined && networkCodes.has(code)) || /fetch failed|terminated|socket|network|other side closed/i.test(message);
  if (looksNetwork) {
    return new ModelError(streamStarted ? "stream_cut" : "network", `${message}${code ? ` (${code})` : ""}`, { cause: error });
  }
  // Errors embedded in the stream by providers (Anthropic `error` events, OpenAI error chunks).
  if (error && typeof error === "object") {
    const text = JSON.stringify(error);
    if (/overloaded/i.test(text)) return new ModelError("overloaded", text, { cause: error });
    if (/rate_limit/i.test(text)) return new ModelError("rate_limit", text, { cause: error });
    if (/api_error|server_error|internal/i.test(text)) return new ModelError("server", text, { cause: error });
    return new ModelError("bad_request", text, { cause: error });
  }
  return new ModelError("bad_request", message, { cause: error });
}
