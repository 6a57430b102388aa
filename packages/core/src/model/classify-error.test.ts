import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { classifyModelError } from "./classify-error.js";
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
    [404, "", "bad_request"],
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
});
