import type { Readable, Writable } from "node:stream";

/** Largest message body accepted from a server; a bigger one is a broken server, not diagnostics. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

/**
 * JSON-RPC 2.0 as the Language Server Protocol frames it on stdio (Content-Length headers). The
 * client's requests wait for their answers; notifications go to `onNotification`; the server's
 * own requests (workspace/configuration, client/registerCapability...) are answered by
 * `onRequest`, or with null. A closed or broken stream fails every waiting request.
 */
export class JsonRpcConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedWith: Error | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly handlers: {
      onNotification(method: string, params: unknown): void;
      onRequest?(method: string, params: unknown): unknown;
    },
  ) {
    input.on("data", (chunk: Buffer) => this.receive(chunk));
    input.on("end", () => this.close(new Error("the server closed its output")));
    input.on("error", (error) => this.close(error));
    output.on("error", (error) => this.close(error));
  }

  request<T = unknown>(method: string, params: unknown): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (this.closedWith) return;
    this.send({ jsonrpc: "2.0", method, params });
  }

  /** Fails every waiting request with `error`; later requests fail at once. */
  close(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  private send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), "utf8");
    try {
      this.output.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]));
    } catch (error) {
      this.close(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd === -1) return;
      const header = this.buffer.subarray(0, headerEnd).toString("ascii");
      const length = /content-length:\s*(\d+)/i.exec(header);
      if (length === null || Number(length[1]) > MAX_BODY_BYTES) {
        this.close(new Error("the server sent a message without a valid Content-Length"));
        this.buffer = Buffer.alloc(0);
        return;
      }
      const start = headerEnd + 4;
      const end = start + Number(length[1]);
      if (this.buffer.length < end) return;
      const body = this.buffer.subarray(start, end).toString("utf8");
      this.buffer = this.buffer.subarray(end);
      let message: unknown;
      try {
        message = JSON.parse(body);
      } catch {
        continue; // One unreadable message is skipped; the stream stays in step.
      }
      this.dispatch(message);
    }
  }

  private dispatch(message: unknown): void {
    if (typeof message !== "object" || message === null) return;
    const m = message as { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: { message?: string } };
    if (m.method !== undefined && m.id !== undefined) {
      let result: unknown = null;
      try {
        result = this.handlers.onRequest?.(m.method, m.params) ?? null;
      } catch {
        result = null;
      }
      this.send({ jsonrpc: "2.0", id: m.id, result });
      return;
    }
    if (m.method !== undefined) {
      this.handlers.onNotification(m.method, m.params);
      return;
    }
    if (typeof m.id !== "number") return;
    const pending = this.pending.get(m.id);
    if (!pending) return;
    this.pending.delete(m.id);
    if (m.error) pending.reject(new Error(m.error.message ?? "request failed"));
    else pending.resolve(m.result);
  }
}
