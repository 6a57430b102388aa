import { APICallError, InvalidResponseDataError } from "@ai-sdk/provider";
import { hostOf, isLocalUrl, localServerHint, type Endpoint } from "./endpoint.js";
import { ContextWindowExceededError, ModelError } from "./errors.js";
import { parseRetryAfter } from "./retry.js";
import { settingsFault } from "./settings-fault.js";

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

/** One line a person can read: whitespace folded, long provider bodies cut. */
function oneLine(text: string, max = 300): string {
  const folded = text.replace(/\s+/g, " ").trim();
  return folded.length > max ? `${folded.slice(0, max - 1)}…` : folded;
}

/** The text of anything thrown: an Error's message (never `{}`), or what an object in the stream says. */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message || "no details given";
  if (typeof error === "string") return error;
  if (error && typeof error === "object") {
    const inner = (error as { error?: unknown }).error;
    const message = (error as { message?: unknown }).message ?? (inner && typeof inner === "object" ? (inner as { message?: unknown }).message : undefined);
    const type = (error as { type?: unknown }).type ?? (inner && typeof inner === "object" ? (inner as { type?: unknown }).type : undefined);
    if (typeof message === "string" && message.trim() !== "") return typeof type === "string" ? `${type}: ${message}` : message;
    const json = JSON.stringify(error);
    if (json !== undefined && json !== "{}") return json;
  }
  return String(error);
}

function looksLikeHtml(body: string): boolean {
  return /^\s*(<!doctype html|<html|<head|<body)/i.test(body);
}

/** The provider's own words for an HTTP error: its message, plus the body when it says more. */
function httpDetail(error: APICallError): string {
  const body = error.responseBody ?? "";
  if (looksLikeHtml(body)) return oneLine(`${error.message} (an HTML page)`);
  // The SDK's message is usually taken from the body; the body is added only when it says more.
  const saidAlready = body.includes(JSON.stringify(error.message).slice(1, -1)) || error.message.includes(body.slice(0, 80));
  const extra = body && !saidAlready ? ` ${body.slice(0, 300)}` : "";
  return oneLine(`${error.message}${extra}`);
}

function keyVariables(endpoint: Endpoint): string {
  return endpoint.keyEnv.join(" or ");
}

function who(endpoint: Endpoint | undefined): string {
  return endpoint ? `${endpoint.provider} (${endpoint.url})` : "The provider";
}

function httpError(error: APICallError, status: number, endpoint: Endpoint | undefined): ModelError {
  const detail = httpDetail(error);
  const retryAfterMs = parseRetryAfter(error.responseHeaders);
  const opts = { cause: error, status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  const body = error.responseBody ?? "";
  if (contextWindowPattern.test(`${error.message} ${body}`) && (status === 400 || status === 413)) return new ContextWindowExceededError(detail, status);
  let bodySays: ProviderSays = {};
  try {
    bodySays = providerSays(JSON.parse(body));
  } catch {
    // Not JSON: the status and text decide.
  }
  if (status === 400 && /tool_use_failed|invalid_tool_call/.test(`${bodySays.code ?? ""} ${bodySays.type ?? ""}`)) {
    return new ModelError("bad_output", `${who(endpoint)} rejected the model's own reply as malformed (HTTP 400: ${detail}).`, opts);
  }
  if (status === 429) return new ModelError("rate_limit", `${who(endpoint)} is rate-limiting requests (HTTP 429: ${detail}).`, opts);
  if (status === 529 || /overloaded/i.test(body)) return new ModelError("overloaded", `${who(endpoint)} is overloaded (HTTP ${status}: ${detail}); try again later or set --fallback-model.`, opts);
  if (status === 408) return new ModelError("timeout", `${who(endpoint)} timed out the request (HTTP 408: ${detail}).`, opts);
  if (status >= 500) return new ModelError("server", `${who(endpoint)} failed on its side (HTTP ${status}: ${detail}); try again later or set --fallback-model.`, opts);
  if (status === 401) {
    const fix = endpoint ? `set ${keyVariables(endpoint)} to a valid key` : "check the API key for this provider";
    return new ModelError("auth", `${who(endpoint)} rejected the API key (HTTP 401: ${detail}); ${fix}.`, opts);
  }
  if (status === 403) {
    const fix = endpoint ? `check that the API key in ${keyVariables(endpoint)} may use model "${endpoint.model}"` : "check the API key for this provider";
    return new ModelError("auth", `${who(endpoint)} refused the request (HTTP 403: ${detail}); ${fix}.`, opts);
  }
  if (status === 404) {
    const message = endpoint
      ? `Model "${endpoint.model}" was not found at ${endpoint.provider} (HTTP 404 from ${endpoint.url}: ${detail}); check --model, and that --base-url is the API root.`
      : `Not found (HTTP 404: ${detail}); check the model id and the base URL.`;
    return new ModelError("not_found", message, opts);
  }
  return new ModelError("bad_request", `${who(endpoint)} rejected the request (HTTP ${status}: ${detail}).`, opts);
}

/** What a provider's error object says of itself, wherever it puts it: at the top or under `error`. */
type ProviderSays = { code?: string; status?: number; type?: string };

function providerSays(value: unknown): ProviderSays {
  const says: ProviderSays = {};
  const layers = [value, (value as { error?: unknown })?.error].filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null);
  for (const layer of layers) {
    for (const key of ["status", "status_code", "statusCode", "code"]) {
      const field = layer[key];
      const number = typeof field === "number" ? field : typeof field === "string" && /^\d{3}$/.test(field) ? Number(field) : undefined;
      if (number !== undefined && number >= 100 && number < 600) says.status ??= number;
      else if (typeof field === "string" && key === "code" && field !== "") says.code ??= field;
    }
    if (typeof layer.type === "string" && layer.type !== "error") says.type ??= layer.type;
  }
  return says;
}

/** The provider's code or type named in a message, e.g. "tool_use_failed: ...". */
function labelled(says: ProviderSays, message: string): string {
  const label = says.code ?? says.type;
  return label && !message.includes(label) ? `${label}: ${message}` : message;
}

/**
 * An error the provider sent inside an otherwise good stream, classified by what it says of itself
 * (its code, status and type) before its text: Groq's `tool_use_failed` (the model wrote a call
 * that does not fit the schema; another sample usually does) is retried, Anthropic's
 * `overloaded_error` and a 5xx too, while a 400 that names no passing cause is not.
 */
function inStreamError(error: object, message: string, endpoint: Endpoint | undefined): ModelError {
  const says = providerSays(error);
  const kinds = `${says.code ?? ""} ${says.type ?? ""}`.toLowerCase();
  const text = labelled(says, message);
  const opts = { cause: error, ...(says.status === undefined ? {} : { status: says.status }) };
  if (/context_length|context_window/.test(kinds)) return new ContextWindowExceededError(text, says.status);
  if (/tool_use_failed|invalid_tool_call|tool_call_parse|output_parse/.test(kinds)) {
    return new ModelError("bad_output", `${who(endpoint)} rejected the model's own reply as malformed (${text}).`, opts);
  }
  if (says.status === 429 || /rate_limit|too_many_requests/.test(kinds)) return new ModelError("rate_limit", `${who(endpoint)} is rate-limiting requests: ${text}`, opts);
  if (says.status === 529 || /overloaded/.test(kinds) || (!says.status && /overloaded/i.test(message))) {
    return new ModelError("overloaded", `${who(endpoint)} is overloaded: ${text}`, opts);
  }
  if (says.status === 408 || /timeout/.test(kinds)) return new ModelError("timeout", `${who(endpoint)} timed out the reply: ${text}`, opts);
  if ((says.status !== undefined && says.status >= 500) || /api_error|server_error|internal|unavailable/.test(kinds)) {
    return new ModelError("server", `${who(endpoint)} failed on its side mid-reply: ${text}`, opts);
  }
  if (says.status === 401 || says.status === 403 || /authentication|permission/.test(kinds)) {
    return new ModelError("auth", `${who(endpoint)} refused the request mid-reply: ${text}`, opts);
  }
  return new ModelError("bad_request", `${who(endpoint)} sent an error: ${text}`, opts);
}

/** What is known of the endpoint beyond this one error. */
export type ModelErrorContext = {
  /**
   * The endpoint answered an earlier request of this model. Then the URL is right, and a refused
   * connection or a name that no longer resolves is a passing fault (a server restarting, a DNS
   * blip) worth retrying; before that, it is almost always the URL itself, which no retry cures.
   */
  answeredBefore?: boolean;
};

/**
 * A connection that failed. On first contact, a local server that is not running and a name that
 * does not resolve fail at once: ENOTFOUND is the resolver's definite "no such name" (its passing
 * failures are EAI_AGAIN, retried below), and resolvers cache that answer, so a retry seconds later
 * gets the same one. A typo in --base-url should cost a second, not the ~15 s of four retries.
 */
function connectionError(error: unknown, code: string | undefined, streamStarted: boolean, endpoint: Endpoint | undefined, context: ModelErrorContext): ModelError {
  const firstContact = !streamStarted && !context.answeredBefore;
  // The SDK's own "Cannot connect to API:" prefix would repeat what the message says.
  const said = describe(error).replace(/^Cannot connect to API:\s*/i, "");
  const reason = oneLine(`${said}${code && !said.includes(code) ? ` (${code})` : ""}`);
  if (firstContact && code === "ECONNREFUSED" && endpoint && isLocalUrl(endpoint.url)) {
    return new ModelError("unreachable", localServerHint(endpoint), { cause: error });
  }
  if (firstContact && code === "ENOTFOUND" && endpoint) {
    return new ModelError("unreachable", `Cannot resolve the host ${hostOf(endpoint.url)} of ${endpoint.url} (DNS lookup failed); check --base-url and the network connection.`, { cause: error });
  }
  if (streamStarted) {
    const where = endpoint ? `The connection to ${endpoint.url}` : "The connection to the provider";
    return new ModelError("stream_cut", `${where} broke mid-reply: ${reason}.`, { cause: error });
  }
  const where = endpoint ? `Cannot connect to ${endpoint.url}` : "Cannot connect to the provider";
  return new ModelError("network", `${where}: ${reason}; check the network connection and --base-url.`, { cause: error });
}

/** A ModelError from our own fetch (a stall, a non-API answer), as is or wrapped by the SDK as a cause. */
function ownError(error: unknown): ModelError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    if (current instanceof ModelError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Turns whatever a provider threw into a ModelError, once, at the edge, with a one-line message
 * that says what failed and what to do. `streamStarted` tells a connection broken mid-stream
 * (stream_cut) from one that never answered; `endpoint` names the provider, model and URL.
 */
export function classifyModelError(error: unknown, streamStarted: boolean, signal?: AbortSignal, endpoint?: Endpoint, context: ModelErrorContext = {}): ModelError {
  const ours = ownError(error);
  if (ours) return ours;
  if (signal?.aborted || (error instanceof Error && error.name === "AbortError")) {
    return new ModelError("aborted", "The request was aborted.", { cause: error });
  }
  // openai-compatible's word for a stream that closed cleanly before its finish chunk: a cut stream.
  if (InvalidResponseDataError.isInstance(error) && /without a finish reason/i.test(error.message)) {
    const where = endpoint ? ` from ${endpoint.url}` : "";
    return new ModelError("stream_cut", `The model's response stream${where} ended before it finished.`, { cause: error });
  }
  const code = errorCode(error);
  // Only our own side's errors: a provider's HTTP answer or in-stream error is its words, not the transport's.
  const fault = error instanceof Error && !(APICallError.isInstance(error) && error.statusCode !== undefined) ? settingsFault(error, endpoint) : undefined;
  if (fault) return fault;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    // No status, or a 2xx whose body broke while being read: the connection failed, not the request.
    if (status === undefined || (status >= 200 && status < 300)) return connectionError(error, code, streamStarted, endpoint, context);
    return httpError(error, status, endpoint);
  }
  const message = oneLine(describe(error));
  if (contextWindowPattern.test(message)) return new ContextWindowExceededError(message);
  const looksNetwork =
    (code !== undefined && networkCodes.has(code)) || /fetch failed|terminated|socket|network|other side closed/i.test(message);
  if (looksNetwork) return connectionError(error, code, streamStarted, endpoint, context);
  // Errors embedded in the stream by providers (Anthropic `error` events, OpenAI error chunks).
  if (error && typeof error === "object" && !(error instanceof Error)) return inStreamError(error, message, endpoint);
  return new ModelError("bad_request", `${who(endpoint)} sent a reply Cairn could not use: ${message}`, { cause: error });
}
