import { describe, expect, it } from "vitest";
import { doneWatchingFetch, watchStreamEnd, type StreamEnd } from "./stream-end.js";

/** A fetch that answers with these body pieces, each its own chunk. */
const answering = (...pieces: string[]): typeof fetch => async () =>
  new Response(new ReadableStream({ start: (c) => { for (const p of pieces) c.enqueue(new TextEncoder().encode(p)); c.close(); } }));

async function read(pieces: string[]): Promise<{ state: StreamEnd; body: string }> {
  const state: StreamEnd = { doneSeen: false };
  const watch = watchStreamEnd(state, new AbortController().signal);
  const response = await doneWatchingFetch(answering(...pieces))("http://x", { signal: watch.signal });
  return { state, body: await response.text() };
}

describe("doneWatchingFetch", () => {
  it("sees data: [DONE], even split across chunks, and passes the body on unchanged", async () => {
    const pieces = ['data: {"choices":[]}\n\n', "data: [DO", "NE]\n\n"];
    const { state, body } = await read(pieces);
    expect(state.doneSeen).toBe(true);
    expect(body).toBe(pieces.join(""));
  });

  it("does not take [DONE] inside a chunk's JSON, or a stream that stops without it, for the end", async () => {
    expect((await read(['data: {"content":"data: [DONE]"}\n\n'])).state.doneSeen).toBe(false);
    expect((await read(['data: {"choices":[{"delta":{"content":"4"}}]}\n\n'])).state.doneSeen).toBe(false);
  });

  it("records nothing for a request made outside watchStreamEnd", async () => {
    const response = await doneWatchingFetch(answering("data: [DONE]\n\n"))("http://x");
    expect(await response.text()).toBe("data: [DONE]\n\n");
    const other = await doneWatchingFetch(answering("data: [DONE]\n\n"))("http://x", { signal: new AbortController().signal });
    expect(await other.text()).toBe("data: [DONE]\n\n");
  });
});

describe("watchStreamEnd", () => {
  it("gives the request a signal of its own that the task's stop aborts, with its reason", () => {
    const task = new AbortController();
    const watch = watchStreamEnd({ doneSeen: false }, task.signal);
    expect(watch.signal).not.toBe(task.signal);
    expect(watch.signal.aborted).toBe(false);
    task.abort(new Error("stopped by the person"));
    expect(watch.signal.aborted).toBe(true);
    expect((watch.signal.reason as Error).message).toBe("stopped by the person");
    // A signal already aborted gives an aborted one.
    expect(watchStreamEnd({ doneSeen: false }, task.signal).signal.aborted).toBe(true);
  });

  it("leaves no listener on the task's signal once the request is released", () => {
    const task = new AbortController();
    const watch = watchStreamEnd({ doneSeen: false }, task.signal);
    watch.release();
    task.abort();
    expect(watch.signal.aborted).toBe(false);
  });
});
