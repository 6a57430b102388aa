import { apiFetch } from "./access-token.ts";

export type StreamHandlers = {
  onOpen?: () => void;
  onMessage: (data: string) => void;
  /** The server refused the token (401): retrying cannot help. */
  onUnauthorized?: () => void;
  /** The stream broke or could not start; it is retried after a second. */
  onError?: () => void;
};

/**
 * Server-sent events read with fetch(), because EventSource cannot send the token header. Like
 * EventSource it reconnects by itself and sends Last-Event-ID, so the server replays exactly what
 * was missed. Returns a function that closes the stream for good.
 */
export function openEventStream(path: string, handlers: StreamHandlers): () => void {
  let closed = false;
  let lastId: string | undefined;
  let retryMs = 1000;
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const dispatch = (block: string) => {
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") data.push(value);
      else if (field === "id") lastId = value;
      else if (field === "retry" && /^\d+$/.test(value)) retryMs = Number(value);
    }
    if (data.length > 0) handlers.onMessage(data.join("\n"));
  };

  const connect = async () => {
    controller = new AbortController();
    try {
      const res = await apiFetch(path, { headers: { Accept: "text/event-stream", ...(lastId !== undefined ? { "Last-Event-ID": lastId } : {}) }, signal: controller.signal });
      if (res.status === 401) {
        closed = true;
        handlers.onUnauthorized?.();
        return;
      }
      if (!res.ok || !res.body) throw new Error(`status ${res.status}`);
      handlers.onOpen?.();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, "\n");
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          dispatch(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // Aborted by close(), or the connection broke: retried below unless closed.
    }
    if (closed) return;
    handlers.onError?.();
    timer = setTimeout(() => void connect(), retryMs);
  };

  void connect();
  return () => {
    closed = true;
    clearTimeout(timer);
    controller?.abort();
  };
}
