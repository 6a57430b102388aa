import stream from "node:stream";
import { FetchHeaders, type HeadersInit } from "./fetch-headers.js";

/** Whether a stream was read from or cancelled (Node has it since 16.8; its types do not say so yet). */
const { isDisturbed } = stream as unknown as { isDisturbed(body: ReadableStream): boolean };

type ResponseType = Response["type"];

export type FetchResponseInit = {
  status?: number;
  statusText?: string;
  headers?: HeadersInit | FetchHeaders;
  url?: string;
  redirected?: boolean;
  type?: ResponseType;
};

/**
 * What fetch's Response offers the AI SDK and Cairn (status, headers, a web ReadableStream body,
 * text/json/arrayBuffer, clone), built without the global Response: that global loads Node's
 * bundled undici (~28 ms of CPU; see http-fetch.ts). The layers that wrap a body (guarded-fetch,
 * stream-end, the recorder) build one of these where they built a Response.
 */
export class FetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: FetchHeaders;
  readonly url: string;
  readonly redirected: boolean;
  readonly type: ResponseType;
  #body: ReadableStream<Uint8Array> | null;

  constructor(body: ReadableStream<Uint8Array> | null, init: FetchResponseInit = {}) {
    this.#body = body;
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? "";
    this.headers = new FetchHeaders(init.headers);
    this.url = init.url ?? "";
    this.redirected = init.redirected ?? false;
    this.type = init.type ?? "default";
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#body !== null && isDisturbed(this.#body);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    if (this.#body === null) return new Uint8Array(0);
    const reader = this.#body.getReader();
    const chunks: Uint8Array[] = [];
    let length = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
    }
    const all = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      all.set(chunk, at);
      at += chunk.byteLength;
    }
    return all;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<any> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    const type = this.headers.get("content-type");
    return new Blob([(await this.bytes()) as Uint8Array<ArrayBuffer>], type ? { type } : {});
  }

  async formData(): Promise<FormData> {
    throw new TypeError("formData() is not offered by Cairn's model transport; read the body as text.");
  }

  clone(): FetchResponse {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    let copy: ReadableStream<Uint8Array> | null = null;
    if (this.#body) [this.#body, copy] = this.#body.tee();
    return new FetchResponse(copy, this);
  }
}

/**
 * A FetchResponse where fetch's Response is expected. It has every member the callers use; only
 * the types differ (Node's and the DOM's Response types name their streams' generics differently).
 */
export function fetchResponse(body: ReadableStream<Uint8Array> | null, init: FetchResponseInit = {}): Response {
  return new FetchResponse(body, init) as unknown as Response;
}
