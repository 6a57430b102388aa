import { fetchResponse } from "./fetch-response.js";

/**
 * What the raw bytes of one response said about its end. The SDKs drop the OpenAI stream's closing
 * `data: [DONE]` before anything above them sees it, yet it is the one sign that a stream without a
 * finish_reason (Snowflake Cortex never sends one) ended because the server was done, not because a
 * proxy cut it. The model adapter gives each request a signal of its own (`watchStreamEnd`), which
 * the SDKs hand to fetch as it is, and the fetch below records the marker on that request's state.
 *
 * Keyed by the signal rather than an AsyncLocalStorage: in Node 20 a storage, once run, turns on
 * promise hooks for the rest of the process, and every promise then pays for them (the web streams
 * a reply flows through make many: ~60% slower).
 */
export type StreamEnd = { doneSeen: boolean };

const watched = new WeakMap<AbortSignal, StreamEnd>();

/** Only the OpenAI format ends its stream with `data: [DONE]`: Anthropic's replies are neither scanned nor watched. */
export function endsWithDone(provider: string): boolean {
  return provider !== "anthropic";
}

/** One request's own signal, aborted with `signal`; its response's end is recorded on `state`. `release` unlinks it once the request is over. */
export function watchStreamEnd(state: StreamEnd, signal: AbortSignal): { signal: AbortSignal; release(): void } {
  const own = new AbortController();
  const abort = (): void => own.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  watched.set(own.signal, state);
  return { signal: own.signal, release: () => signal.removeEventListener("abort", abort) };
}

const doneLine = /^data:\s*\[DONE\]\s*$/;

/** A fetch whose response bodies, read as SSE, set `doneSeen` on the caller's state at `data: [DONE]`. */
export function doneWatchingFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const state = init?.signal ? watched.get(init.signal) : undefined;
    const response = await fetch(input, init);
    if (!state || !response.body) return response;
    const decoder = new TextDecoder();
    let partial = "";
    const scan = (text: string) => {
      const lines = (partial + text).split(/\r\n|\r|\n/);
      partial = lines.pop() ?? "";
      if (lines.some((line) => doneLine.test(line))) state.doneSeen = true;
    };
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          scan(decoder.decode(chunk, { stream: true }));
          out.enqueue(chunk);
        },
        flush() {
          scan(`${decoder.decode()}\n`);
        },
      }),
    );
    // Not the global Response: that would load undici (http-fetch.ts).
    return fetchResponse(body, { status: response.status, statusText: response.statusText, headers: response.headers, url: response.url, redirected: response.redirected, type: response.type });
  };
}
