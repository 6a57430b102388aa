import { AsyncLocalStorage } from "node:async_hooks";
import { fetchResponse } from "./fetch-response.js";

/**
 * What the raw bytes of one response said about its end. The SDKs drop the OpenAI stream's closing
 * `data: [DONE]` before anything above them sees it, yet it is the one sign that a stream without a
 * finish_reason (Snowflake Cortex never sends one) ended because the server was done, not because a
 * proxy cut it. The model adapter runs each request inside `watchStreamEnd`, and the fetch below
 * records the marker on that request's own state.
 */
export type StreamEnd = { doneSeen: boolean };

const current = new AsyncLocalStorage<StreamEnd>();

/** Runs `request` (which calls fetch) with `state` as the place its response's end is recorded. */
export function watchStreamEnd<T>(state: StreamEnd, request: () => T): T {
  return current.run(state, request);
}

const doneLine = /^data:\s*\[DONE\]\s*$/;

/** A fetch whose response bodies, read as SSE, set `doneSeen` on the caller's state at `data: [DONE]`. */
export function doneWatchingFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const state = current.getStore();
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
