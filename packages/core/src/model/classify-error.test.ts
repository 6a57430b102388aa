import { APICallError, InvalidResponseDataError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { classifyModelError } from "./classify-error.js";
import type { Endpoint } from "./endpoint.js";
import { ContextWindowExceededError } from "./errors.js";

function apiError(statusCode: number | undefined, body = "", headers: Record<string, string> = {}) {
  return new APICallError({ message: `HTTP ${statusCode}`, url: "http://x", requestBodyValues: {}, statusCode, responseHeaders: headers, responseBody: body });
}

describe("classifyModelError", () => {
  it.each([
    [429, "", "rate_limit"],
    [529, "", "overloaded"],
    [500, "", "server"],
    [503, "", "server"],
    [408, "", "timeout"],
    [401, "", "auth"],
    [403, "", "auth"],
    [404, "", "not_found"],
    [400, '{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}', "bad_request"],
    [400, '{"type":"error","error":{"type":"overloaded_error"}}', "overloaded"],
  ])("HTTP %i %s → %s", (status, body, kind) => {
    expect(classifyModelError(apiError(status, body), false).kind).toBe(kind);
  });

  it("recognises context-window errors of both wire formats as a typed error", () => {
    const anthropic = classifyModelError(apiError(400, '{"error":{"message":"prompt is too long: 250000 tokens > 200000 maximum"}}'), false);
    const openai = classifyModelError(apiError(400, '{"error":{"code":"context_length_exceeded","message":"This model\'s maximum context length is 128000 tokens"}}'), false);
    expect(anthropic).toBeInstanceOf(ContextWindowExceededError);
    expect(openai).toBeInstanceOf(ContextWindowExceededError);
    expect(anthropic.retryable).toBe(false);
  });

  it("carries retry-after into the error", () => {
    expect(classifyModelError(apiError(429, "", { "retry-after": "2" }), false).retryAfterMs).toBe(2000);
  });

  it("tells a connection that never answered from one that broke mid-stream", () => {
    const refused = Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) });
    expect(classifyModelError(refused, false).kind).toBe("network");
    expect(classifyModelError(new TypeError("terminated"), true).kind).toBe("stream_cut");
    expect(classifyModelError(apiError(200, ""), true).kind).toBe("stream_cut");
    expect(classifyModelError(apiError(200, ""), true).status).toBeUndefined();
  });

  it("reports an aborted request as aborted, not as a failure to retry", () => {
    const controller = new AbortController();
    controller.abort();
    expect(classifyModelError(new Error("whatever"), true, controller.signal).kind).toBe("aborted");
  });

  it("classifies errors sent inside the stream", () => {
    expect(classifyModelError({ type: "overloaded_error", message: "Overloaded" }, true).kind).toBe("overloaded");
    expect(classifyModelError({ type: "api_error", message: "Internal" }, true).kind).toBe("server");
  });

  it("never shows an Error as {} or by its class name", () => {
    const sdkError = new InvalidResponseDataError({ data: { weird: true }, message: "Chunk had no choices." });
    const message = classifyModelError(sdkError, true).message;
    expect(message).toContain("Chunk had no choices.");
    expect(message).not.toContain("{}");
    expect(message).not.toMatch(/AI_|InvalidResponseDataError/);
    expect(classifyModelError(new Error(""), true).message).not.toContain("{}");
  });

  it.each([
    // Groq: the model's own call failed the tool's schema; another sample usually passes.
    [{ message: "Tool call validation failed", type: "invalid_request_error", code: "tool_use_failed" }, "bad_output", true],
    // OpenRouter puts the upstream status in `code` as a number.
    [{ code: 429, message: "Provider returned error" }, "rate_limit", true],
    [{ code: 502, message: "Upstream error" }, "server", true],
    [{ code: 400, message: "Invalid request" }, "bad_request", false],
    // Anthropic's error event, under `error`.
    [{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "overloaded", true],
    [{ type: "error", error: { type: "rate_limit_error", message: "Slow down" } }, "rate_limit", true],
    [{ error: { code: "context_length_exceeded", message: "too long" } }, "context_window", false],
    [{ error: { type: "authentication_error", message: "bad key" } }, "auth", false],
  ])("classifies the in-stream error %j by its code, status and type → %s", (error, kind, retryable) => {
    const classified = classifyModelError(error, true);
    expect(classified.kind).toBe(kind);
    expect(classified.retryable).toBe(retryable);
  });

  it("names the provider's code in the one line when a malformed reply is given up on", () => {
    const error = classifyModelError({ message: "Tool call validation failed: missing name", type: "invalid_request_error", code: "tool_use_failed" }, true);
    expect(error.message).toContain("tool_use_failed");
    expect(error.message).toContain("Tool call validation failed: missing name");
    expect(error.message).not.toContain("\n");
  });

  it("retries Groq's tool_use_failed sent as an HTTP 400", () => {
    const body = '{"error":{"message":"Failed to call a function. Please adjust your prompt.","type":"invalid_request_error","code":"tool_use_failed"}}';
    expect(classifyModelError(apiError(400, body), false).kind).toBe("bad_output");
  });

  it("reads the message inside an error object sent in the stream", () => {
    const error = classifyModelError({ error: { type: "invalid_request_error", message: "tools[0] is malformed" } }, true);
    expect(error.message).toContain("invalid_request_error: tools[0] is malformed");
  });
});

const ollama: Endpoint = { provider: "ollama", model: "qwen3-coder", url: "http://localhost:11434/v1", keyEnv: ["CAIRN_API_KEY"] };
const anthropic: Endpoint = { provider: "anthropic", model: "claude-sonnet-4-5", url: "https://api.anthropic.com/v1", keyEnv: ["ANTHROPIC_API_KEY", "CAIRN_API_KEY"] };
const refused = (host: string) =>
  new APICallError({
    message: `Cannot connect to API: connect ECONNREFUSED ${host}`,
    url: "http://x",
    requestBodyValues: {},
    cause: Object.assign(new Error(`connect ECONNREFUSED ${host}`), { code: "ECONNREFUSED" }),
    isRetryable: true,
  });

describe("classifyModelError with the endpoint", () => {
  it("treats openai-compatible's missing finish reason as a cut stream, which is retried", () => {
    const error = classifyModelError(new InvalidResponseDataError({ data: undefined, message: "Response stream ended without a finish reason." }), true, undefined, ollama);
    expect(error.kind).toBe("stream_cut");
    expect(error.retryable).toBe(true);
  });

  it("fails at once with a hint when a local server refuses the connection", () => {
    const error = classifyModelError(refused("127.0.0.1:11434"), false, undefined, ollama);
    expect(error.kind).toBe("unreachable");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("Connection refused: is Ollama running at http://localhost:11434? Start it with `ollama serve` or pass --base-url.");
    const lmstudio = classifyModelError(refused("127.0.0.1:1234"), false, undefined, { ...ollama, provider: "lmstudio", url: "http://127.0.0.1:1234/v1" });
    expect(lmstudio.message).toContain("is LM Studio's server running at http://127.0.0.1:1234?");
    const compatible = classifyModelError(refused("[::1]:8000"), false, undefined, { ...ollama, provider: "openai-compatible", url: "http://[::1]:8000/v1" });
    expect(compatible.message).toContain("is the server running at http://[::1]:8000/v1?");
  });

  it("keeps retrying a refused connection to a remote host, which may come back", () => {
    const error = classifyModelError(refused("203.0.113.5:443"), false, undefined, { ...anthropic, url: "https://models.example.com/v1" });
    expect(error.kind).toBe("network");
    expect(error.message).toBe("Cannot connect to https://models.example.com/v1: connect ECONNREFUSED 203.0.113.5:443; check the network connection and --base-url.");
  });

  it("names the host that does not resolve and does not retry", () => {
    const notFound = Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("getaddrinfo ENOTFOUND api.exmaple.com"), { code: "ENOTFOUND" }) });
    const error = classifyModelError(notFound, false, undefined, { ...anthropic, url: "https://api.exmaple.com/v1" });
    expect(error.kind).toBe("unreachable");
    expect(error.message).toMatch(/^Cannot resolve the host api\.exmaple\.com of https:\/\/api\.exmaple\.com\/v1 .*check --base-url/);
  });

  it("says which variable holds the key on 401 and 403", () => {
    const denied = classifyModelError(apiError(401, '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'), false, undefined, anthropic);
    expect(denied.message).toContain("rejected the API key");
    expect(denied.message).toContain("set ANTHROPIC_API_KEY or CAIRN_API_KEY");
    const forbidden = classifyModelError(apiError(403), false, undefined, anthropic);
    expect(forbidden.message).toContain('may use model "claude-sonnet-4-5"');
  });

  it("names the model and the provider on 404", () => {
    const error = classifyModelError(apiError(404, '{"error":{"message":"model \\"qwen9\\" not found, try pulling it first"}}'), false, undefined, { ...ollama, model: "qwen9" });
    expect(error.kind).toBe("not_found");
    expect(error.message).toMatch(/^Model "qwen9" was not found at ollama \(HTTP 404 from http:\/\/localhost:11434\/v1: .*\); check --model/);
  });

  it("keeps a provider's HTML error page out of the message, on one line", () => {
    const error = classifyModelError(apiError(502, "<!DOCTYPE html>\n<html><body><h1>502 Bad Gateway</h1>\n</body></html>"), false, undefined, anthropic);
    expect(error.kind).toBe("server");
    expect(error.message).not.toContain("<");
    expect(error.message).not.toContain("\n");
  });
});

/** What the SDK makes of a fetch that failed: "Cannot connect to API: <cause>", the cause kept. */
function cannotConnect(cause: Error): APICallError {
  return new APICallError({ message: `Cannot connect to API: ${cause.message}`, url: "http://x", requestBodyValues: {}, cause, isRetryable: true });
}
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const compatible = (url: string): Endpoint => ({ provider: "openai-compatible", model: "m", url, keyEnv: ["CAIRN_API_KEY"] });

describe("failures the settings cause, which no retry cures", () => {
  it("a port fetch refuses (a real undici 'bad port'): names the port and URL, not retried", async () => {
    for (const [url, port] of [["http://127.0.0.1:1/v1", "1"], ["http://[::1]:6000/v1", "6000"], ["http://localhost:6665/v1", "6665"]] as const) {
      const raw: unknown = await fetch(url).catch((error: unknown) => error);
      for (const thrown of [raw, cannotConnect((raw as Error).cause as Error)]) {
        const error = classifyModelError(thrown, false, undefined, compatible(url));
        expect(error.kind).toBe("config");
        expect(error.retryable).toBe(false);
        expect(error.message).toBe(
          `Cannot use port ${port} of ${url}: Node's fetch refuses to connect to it (a "bad port", reserved for another protocol); run the server on another port, e.g. 8000, and pass that in --base-url.`,
        );
      }
    }
  });

  it("https:// to a plain http server: suggests the http:// URL", () => {
    const cause = withCode("80AC49D4E97F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n", "ERR_SSL_WRONG_VERSION_NUMBER");
    const error = classifyModelError(cannotConnect(cause), false, undefined, compatible("https://127.0.0.1:8000/v1"));
    expect(error.kind).toBe("config");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      "https://127.0.0.1:8000/v1 does not answer in TLS, so https:// cannot work there (ERR_SSL_WRONG_VERSION_NUMBER); if it is a plain http server, pass http://127.0.0.1:8000/v1 to --base-url.",
    );
  });

  it.each([
    ["DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate", "NODE_EXTRA_CA_CERTS"],
    ["UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "unable to get local issuer certificate", "NODE_EXTRA_CA_CERTS"],
    ["CERT_HAS_EXPIRED", "certificate has expired", "must renew its certificate"],
    ["ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match certificate's altnames: Host: llm.internal. is not in the cert's altnames: DNS:other.example", "host name the certificate was issued for"],
  ])("a certificate refused with %s: names the host, the reason and what to do", (code, reason, fix) => {
    const error = classifyModelError(cannotConnect(withCode(reason, code)), false, undefined, compatible("https://llm.internal:8443/v1"));
    expect(error.kind).toBe("config");
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(`The TLS certificate of llm.internal:8443 was refused (${reason}, ${code}); `);
    expect(error.message).toContain(fix);
  });

  it("an API key that cannot be sent in a header: names the variables and never repeats the key", async () => {
    const raw: unknown = await fetch("http://127.0.0.1:9/", { headers: { authorization: "Bearer sk-secret\nrest" } }).catch((error: unknown) => error);
    expect(String((raw as Error).message)).toContain("sk-secret");
    const error = classifyModelError(raw, false, undefined, anthropic);
    expect(error.kind).toBe("config");
    expect(error.message).toBe(
      "The API key in ANTHROPIC_API_KEY or CAIRN_API_KEY cannot be sent in an HTTP header (it has a line break or a character such as … that is not plain ASCII); copy the key again.",
    );
    expect(error.message).not.toContain("sk-secret");
  });

  it("a provider's own HTTP error that happens to use the same words stays the provider's error", () => {
    expect(classifyModelError(apiError(400, '{"error":{"message":"invalid header value"}}'), false, undefined, anthropic).kind).toBe("bad_request");
  });
});

describe("passing network faults are still retried", () => {
  it.each([
    ["ECONNRESET", "read ECONNRESET"],
    ["ETIMEDOUT", "connect ETIMEDOUT 203.0.113.5:443"],
    ["EAI_AGAIN", "getaddrinfo EAI_AGAIN api.anthropic.com"],
    ["UND_ERR_SOCKET", "other side closed"],
    ["ECONNRESET", "Client network socket disconnected before secure TLS connection was established"],
  ])("%s (%s) is a retryable network error", (code, message) => {
    const error = classifyModelError(cannotConnect(withCode(message, code)), false, undefined, anthropic);
    expect(error.kind).toBe("network");
    expect(error.retryable).toBe(true);
  });

  it("a name that resolved earlier in the run and then does not is a DNS blip: retried", () => {
    const notFound = cannotConnect(withCode("getaddrinfo ENOTFOUND api.anthropic.com", "ENOTFOUND"));
    expect(classifyModelError(notFound, false, undefined, anthropic).kind).toBe("unreachable");
    const later = classifyModelError(notFound, false, undefined, anthropic, { answeredBefore: true });
    expect(later.kind).toBe("network");
    expect(later.retryable).toBe(true);
    expect(later.message).toContain("ENOTFOUND api.anthropic.com");
  });

  it("a local server that answered earlier and then refuses is restarting: retried", () => {
    const error = classifyModelError(refused("127.0.0.1:11434"), false, undefined, ollama, { answeredBefore: true });
    expect(error.kind).toBe("network");
    expect(error.retryable).toBe(true);
  });
});
