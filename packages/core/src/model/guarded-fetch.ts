import { ModelError } from "./errors.js";
import { fetchResponse } from "./fetch-response.js";
import { httpFetch } from "./http-fetch.js";
import { innermost } from "./settings-fault.js";
import { speaksTls } from "./tls-probe.js";

export type FetchGuard = {
  /** The API root, as messages name it. */
  url: string;
  /** Longest wait for the response to begin, and between two chunks of it. */
  idleTimeoutMs: number;
  /** The transport underneath (a recording's, a replay's); default the network through httpFetch. */
  fetch?: typeof globalThis.fetch;
};

/** The default idle limit: long enough for a slow model's first token; the transport itself sets none. */
export const defaultRequestTimeoutSeconds = 120;

function stalled(guard: FetchGuard): ModelError {
  const seconds = Math.round((guard.idleTimeoutMs / 1000) * 10) / 10;
  return new ModelError("timeout", `No response from ${guard.url} for ${seconds} s; check the provider or raise --request-timeout.`);
}

/** An http:// request closed before any answer by a server that speaks TLS: the URL wants https://. */
async function plainHttpToTls(guard: FetchGuard, error: unknown): Promise<ModelError | undefined> {
  if (!/^http:/i.test(guard.url)) return undefined;
  const { code } = innermost(error);
  if (code !== "UND_ERR_SOCKET" && code !== "ECONNRESET") return undefined;
  if (!(await speaksTls(guard.url))) return undefined;
  const https = guard.url.replace(/^http:/i, "https:");
  return new ModelError("config", `${guard.url} speaks TLS, so plain http:// cannot work there (it closed the connection, ${code}); pass ${https} to --base-url.`);
}

function isHtml(contentType: string | null): boolean {
  return contentType !== null && /^\s*(text\/html|application\/xhtml\+xml)/i.test(contentType);
}

/**
 * The fetch handed to the AI SDK providers. Each request gets its own AbortController and an idle
 * timer, reset on every chunk, so a provider that goes silent (before the first byte or mid-stream)
 * fails after `idleTimeoutMs` as a retryable timeout instead of hanging (node:http waits forever).
 * It also refuses answers that are not an API's: an HTML page (a captive portal, a wrong base URL)
 * and an empty body, and an http:// request to a port that speaks TLS. Errors are thrown as
 * ModelError with no `cause`, which the SDK passes on as is.
 */
export function guardedFetch(guard: FetchGuard): typeof globalThis.fetch {
  const baseFetch = guard.fetch ?? httpFetch;
  return async (input, init) => {
    const controller = new AbortController();
    const callerSignal = init?.signal ?? undefined;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) onCallerAbort();
    callerSignal?.addEventListener("abort", onCallerAbort, { once: true });

    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const disarm = () => clearTimeout(timer);
    const arm = () => {
      disarm();
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(stalled(guard));
      }, guard.idleTimeoutMs);
    };
    const release = () => {
      disarm();
      callerSignal?.removeEventListener("abort", onCallerAbort);
    };

    arm();
    let response: Response;
    try {
      response = await baseFetch(input, { ...init, signal: controller.signal });
    } catch (error) {
      release();
      if (timedOut) throw stalled(guard);
      throw (await plainHttpToTls(guard, error)) ?? error;
    }

    if (response.ok && isHtml(response.headers.get("content-type"))) {
      release();
      await response.body?.cancel().catch(() => undefined);
      throw new ModelError("bad_response", `The server at ${guard.url} answered with an HTML page, not an API response; check --base-url.`, {
        status: response.status,
      });
    }
    const empty = () =>
      new ModelError("stream_cut", `The server at ${guard.url} answered with an empty response, not an API reply; check --base-url and the provider.`);
    if (response.body === null) {
      release();
      if (response.ok) throw empty();
      return response;
    }

    const reader = response.body.getReader();
    let bytes = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(out) {
        arm();
        try {
          const { done, value } = await reader.read();
          disarm();
          if (done) {
            release();
            if (bytes === 0 && response.ok) out.error(empty());
            else out.close();
            return;
          }
          bytes += value.byteLength;
          out.enqueue(value);
        } catch (error) {
          release();
          out.error(timedOut ? stalled(guard) : error);
        }
      },
      async cancel(reason) {
        release();
        await reader.cancel(reason).catch(() => undefined);
      },
    });
    disarm();
    return fetchResponse(body, { status: response.status, statusText: response.statusText, headers: response.headers, url: response.url, redirected: response.redirected, type: response.type });
  };
}
