import { describe, expect, it } from "vitest";
import { ModelError } from "./errors.js";
import { parseRetryAfter, retryDelayMs } from "./retry.js";

const policy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 10_000 };
const noJitter = () => 0.5;

describe("retryDelayMs", () => {
  it("backs off exponentially for retryable errors until the attempts are used up", () => {
    const error = new ModelError("server", "500");
    expect([1, 2, 3, 4].map((n) => retryDelayMs(error, n, policy, noJitter))).toEqual([1000, 2000, 4000, undefined]);
  });

  it("honours retry-after, capped by the maximum delay", () => {
    expect(retryDelayMs(new ModelError("rate_limit", "429", { retryAfterMs: 7000 }), 1, policy)).toBe(7000);
    expect(retryDelayMs(new ModelError("rate_limit", "429", { retryAfterMs: 99_000 }), 1, policy)).toBe(10_000);
    expect(retryDelayMs(new ModelError("rate_limit", "429", { retryAfterMs: 0 }), 1, policy)).toBe(0);
  });

  it("caps exponential growth", () => {
    expect(retryDelayMs(new ModelError("overloaded", "529"), 3, { ...policy, maxRetries: 10, maxDelayMs: 3000 }, noJitter)).toBe(3000);
  });

  it("never retries errors a retry cannot fix", () => {
    for (const kind of ["auth", "not_found", "bad_request", "bad_response", "unreachable", "config", "context_window", "aborted"] as const) {
      expect(retryDelayMs(new ModelError(kind, kind), 1, policy)).toBeUndefined();
    }
    expect(retryDelayMs(new Error("plain"), 1, policy)).toBeUndefined();
  });

  it("retries network failures and cut streams", () => {
    expect(retryDelayMs(new ModelError("network", "ECONNRESET"), 1, policy, noJitter)).toBe(1000);
    expect(retryDelayMs(new ModelError("stream_cut", "cut"), 1, policy, noJitter)).toBe(1000);
    expect(retryDelayMs(new ModelError("timeout", "no response for 120 s"), 1, policy, noJitter)).toBe(1000);
  });
});

describe("parseRetryAfter", () => {
  it("reads retry-after-ms, retry-after seconds and HTTP dates, case-insensitively", () => {
    expect(parseRetryAfter({ "retry-after-ms": "250" })).toBe(250);
    expect(parseRetryAfter({ "Retry-After": "3" })).toBe(3000);
    const now = Date.parse("2026-11-21T12:00:00Z");
    expect(parseRetryAfter({ "retry-after": "Sat, 21 Nov 2026 12:00:05 GMT" }, now)).toBe(5000);
    expect(parseRetryAfter({ "retry-after": "soon" })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
