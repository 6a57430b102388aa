import { httpFetch } from "./http-fetch.js";

/** Why an endpoint could not describe its models: it took too long, gave no usable answer, or was not there. */
export class DiscoveryFailure extends Error {
  override name = "DiscoveryFailure";
  constructor(
    readonly kind: "timeout" | "bad-answer" | "unsupported" | "unreachable",
    message: string,
  ) {
    super(message);
  }
}

/**
 * One JSON answer from a model endpoint's own API, within `timeoutMs`. A 404 or 405 means the
 * endpoint does not speak this API (a proxy in front of the model, another server on the port).
 */
export async function fetchJson(url: string, init: { method?: string; body?: unknown; timeoutMs: number; apiKey?: string }): Promise<unknown> {
  let response: Response;
  try {
    // Cairn's own transport, as the model's requests use: the global fetch would load undici.
    response = await httpFetch(url, {
      method: init.method ?? "GET",
      headers: { accept: "application/json", ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...(init.apiKey ? { authorization: `Bearer ${init.apiKey}` } : {}) },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === "TimeoutError" || name === "AbortError") throw new DiscoveryFailure("timeout", `no answer within ${init.timeoutMs / 1000} s`);
    throw new DiscoveryFailure("unreachable", (error as Error).message);
  }
  if (response.status === 404 || response.status === 405) {
    await response.body?.cancel();
    throw new DiscoveryFailure("unsupported", `HTTP ${response.status}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new DiscoveryFailure("bad-answer", `HTTP ${response.status}`);
  }
  try {
    return await response.json();
  } catch (error) {
    const name = (error as Error).name;
    if (name === "TimeoutError" || name === "AbortError") throw new DiscoveryFailure("timeout", `no answer within ${init.timeoutMs / 1000} s`);
    throw new DiscoveryFailure("bad-answer", "the answer is not JSON");
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A positive whole number of tokens, or undefined. */
export const tokens = (value: unknown): number | undefined => (typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined);

/** An endpoint's root from its OpenAI-compatible base URL: Ollama and LM Studio serve their own APIs beside /v1. */
export const rootOf = (baseUrl: string): string => baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
