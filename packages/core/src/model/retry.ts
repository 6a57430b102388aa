import { ModelError } from "./errors.js";

export type RetryPolicy = {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
};

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 4, baseDelayMs: 1_000, maxDelayMs: 60_000 };

/**
 * How long to wait before retry number `attempt` (1-based), or undefined when the error is not
 * worth retrying or the attempts are used up. A server's retry-after wins over the backoff.
 */
export function retryDelayMs(error: unknown, attempt: number, policy: RetryPolicy, random: () => number = Math.random): number | undefined {
  if (!(error instanceof ModelError) || !error.retryable) return undefined;
  if (attempt > policy.maxRetries) return undefined;
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, policy.maxDelayMs);
  const exponential = policy.baseDelayMs * 2 ** (attempt - 1);
  const jitter = 0.8 + 0.4 * random();
  return Math.min(Math.round(exponential * jitter), policy.maxDelayMs);
}

/** Parses `retry-after-ms`, then `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = lower["retry-after-ms"];
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = lower["retry-after"];
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ModelError("aborted", "aborted"));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelError("aborted", "aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
