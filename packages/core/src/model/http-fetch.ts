import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { pipeline, Transform, type Readable } from "node:stream";
import type zlib from "node:zlib";
import { FetchHeaders } from "./fetch-headers.js";
import { fetchResponse } from "./fetch-response.js";

/**
 * The network under Cairn's model requests: fetch's contract on node:http and node:https. The
 * global fetch loads Node's bundled undici (~28 ms of CPU per process, a tenth of a one-turn task)
 * and builds its streams on top; this answers with the same status, headers and web ReadableStream
 * body, sends what fetch sends (its default headers, accept-encoding, content-length), decodes
 * gzip, deflate and br as fetch does, follows redirects by fetch's rules, and fails in fetch's
 * shapes, so the AI SDK and classify-error.ts see what they saw:
 * - a request that got no response rejects with TypeError "fetch failed" whose cause is Node's
 *   error (ECONNREFUSED, ENOTFOUND, a certificate's code...), which the SDK turns into a retryable
 *   "Cannot connect to API: <cause>";
 * - a body cut off errors the stream with TypeError "terminated" whose cause is the socket's error;
 * - a connection the server closed is undici's SocketError "other side closed" (UND_ERR_SOCKET),
 *   and a malformed response its HTTPParserError, so every message names them as before;
 * - the person's abort rejects, or errors the body, with the signal's reason.
 */

/**
 * One keep-alive pool per protocol for the process: a task's requests reuse the connection and,
 * over TLS, its session, instead of a handshake per request. An idle connection closes after 4 s
 * (sooner when the server's Keep-Alive says so), as undici's do, and never holds the process open.
 */
const agents = {
  "http:": new HttpAgent({ keepAlive: true, timeout: 4_000 }),
  "https:": new HttpsAgent({ keepAlive: true, timeout: 4_000 }),
};

/** The fetch standard's bad ports: fetch refuses them before connecting, and so does this. */
const badPorts = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139,
  143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659,
  4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);
const bodyHeaders = ["content-encoding", "content-language", "content-location", "content-type"];
const maxRedirects = 20;
/**
 * What a redirect to another origin does not carry on: fetch's three, and the API-key headers that
 * providers use instead of authorization (Anthropic's x-api-key, Azure's api-key, Google's
 * x-goog-api-key). fetch forwards those, so a model endpoint (or whatever answers at its address)
 * could hand the person's key to any server with one 307.
 */
const crossOriginDropped = ["authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-goog-api-key"];

/** undici's error for a connection the other side closed: the name and code classify-error.ts and the AI SDK know. */
class SocketError extends Error {
  override name = "SocketError";
  readonly code = "UND_ERR_SOCKET";
}

/** fetch's rejection for a request that got no response, with what went wrong as its cause. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError("fetch failed", { cause });
}

/** Node's error as undici words it, so the messages built from it stay the same. */
function asUndici(error: Error & { code?: string; reason?: string }): Error {
  // Node's words for a connection closed before (or while) answering.
  if (error.message === "socket hang up" || error.message === "aborted") return new SocketError("other side closed");
  if (error.code?.startsWith("HPE_")) {
    const parser = new Error(`Response does not match the HTTP/1.1 protocol (${error.reason ?? error.message})`);
    return Object.assign(parser, { name: "HTTPParserError", code: error.code });
  }
  return error;
}

type Outgoing = { method: string; headers: FetchHeaders; body: Buffer | null; signal: AbortSignal | undefined };

/** A response whose body is still on the socket, and the socket's error if it broke after answering. */
type Incoming = { res: IncomingMessage; socketError: () => Error | undefined };

function send(url: URL, out: Outgoing): Promise<Incoming> {
  if (badPorts.has(Number(url.port))) return Promise.reject(fetchFailed(new Error("bad port")));
  // In undici's order: host and connection first, then the request's own.
  const headers: OutgoingHttpHeaders = { host: url.host, connection: "keep-alive" };
  for (const [name, value] of out.headers.inOrder()) headers[name] = value;
  if (out.body !== null) headers["content-length"] = String(out.body.byteLength);
  else if (out.method === "POST" || out.method === "PUT") headers["content-length"] = "0";

  return new Promise((resolve, reject) => {
    let answered = false;
    let socketError: Error | undefined;
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req: ClientRequest = request(url, { method: out.method, headers, agent: agents[url.protocol as "http:" | "https:"] });
    const onAbort = () => {
      req.destroy();
      if (!answered) reject(out.signal!.reason);
    };
    out.signal?.addEventListener("abort", onAbort, { once: true });
    req.once("close", () => {
      // Once answered, webBody below takes the abort over for the body.
      if (!answered) out.signal?.removeEventListener("abort", onAbort);
    });
    req.on("error", (error) => {
      if (answered) socketError ??= error;
      else if (!out.signal?.aborted) reject(fetchFailed(asUndici(error)));
    });
    req.once("response", (res) => {
      answered = true;
      out.signal?.removeEventListener("abort", onAbort);
      resolve({ res, socketError: () => socketError });
    });
    // Over TLS nothing is written before the handshake ends, as undici does: a failed handshake
    // then reports OpenSSL's own code (ERR_SSL_WRONG_VERSION_NUMBER...), not a failed write's EPROTO.
    const end = () => req.end(out.body ?? undefined, warmReaderRelease);
    req.once("socket", (socket) => {
      if (url.protocol === "https:" && !req.reusedSocket) socket.once("secureConnect", end);
      else end();
    });
  });
}

let readerReleaseWarm = false;

/**
 * The SDKs release a stream reader on every reply (Anthropic's reads the first chunk through a tee).
 * Node builds the error it keeps for released readers on the first release, in a new vm context
 * (~3 ms): done once the first request has been written, while the model answers, not while the
 * reply is read.
 */
function warmReaderRelease(): void {
  if (readerReleaseWarm) return;
  readerReleaseWarm = true;
  new ReadableStream().getReader().releaseLock();
}

/** fetch's decoders for the response's content-encoding, the last coding applied undone first; none for a coding it does not know. */
function decoders(contentEncoding: string | undefined): Readable[] {
  const codings = contentEncoding ? contentEncoding.toLowerCase().split(",") : [];
  const streams: Readable[] = [];
  if (codings.length === 0) return streams;
  const zlib = process.getBuiltinModule("node:zlib"); // only for a coded body: most streams are not
  for (const coding of codings.map((c) => c.trim()).reverse()) {
    // Lenient as fetch (and curl) are with a stream that ends without its trailer.
    if (coding === "gzip" || coding === "x-gzip") streams.push(zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    else if (coding === "deflate") streams.push(inflate());
    else if (coding === "br") streams.push(zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }));
    else return [];
  }
  return streams;
}

/** "deflate" as servers send it: zlib-wrapped or raw, told by the first byte as fetch does. */
function inflate(): Readable {
  const zlib = process.getBuiltinModule("node:zlib");
  const options = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  let inner: zlib.Inflate | zlib.InflateRaw | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (!inner) {
        if (chunk.length === 0) return callback();
        inner = (chunk[0]! & 0x0f) === 8 ? zlib.createInflate(options) : zlib.createInflateRaw(options);
        inner.on("data", (data: Buffer) => this.push(data));
        inner.on("error", (error) => this.destroy(error));
      }
      inner.write(chunk, () => callback());
    },
    flush(callback) {
      if (!inner) return callback();
      inner.once("end", () => callback());
      inner.end();
    },
  });
}

/**
 * The response's body as fetch gives it: a web ReadableStream of Uint8Array, decoded, read as the
 * consumer pulls (the socket pauses meanwhile). A cut ends it with TypeError "terminated" (cause:
 * the socket's error, or "other side closed"); the person's abort ends it with the signal's reason;
 * cancelling it closes the connection.
 */
function webBody(incoming: Incoming, method: string, signal: AbortSignal | undefined): ReadableStream<Uint8Array> | null {
  const { res } = incoming;
  const status = res.statusCode ?? 0;
  if (method === "HEAD" || method === "CONNECT" || nullBodyStatuses.has(status)) {
    res.resume();
    return null;
  }
  const decoding = decoders(res.headers["content-encoding"]);
  let settled = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const finish = () => {
    settled = true;
    signal?.removeEventListener("abort", onAbort);
  };
  const fail = (error: unknown) => {
    if (settled) return;
    finish();
    res.destroy();
    controller.error(error);
  };
  const onAbort = () => fail(signal!.reason);
  const cut = (error?: Error) => {
    if (signal?.aborted) return fail(signal.reason);
    const cause = incoming.socketError() ?? (error ? asUndici(error) : new SocketError("other side closed"));
    fail(new TypeError("terminated", { cause }));
  };
  const source: Readable = decoding.length > 0 ? (pipeline([res, ...decoding], (error) => error && cut(error)) as unknown as Readable) : res;
  if (decoding.length === 0) res.on("error", cut);
  else source.on("error", () => undefined); // reported through pipeline's callback
  res.once("close", () => {
    if (!res.complete) cut();
  });
  signal?.addEventListener("abort", onAbort, { once: true });
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      source.on("data", (chunk: Buffer) => {
        if (settled || chunk.byteLength === 0) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      });
      source.once("end", () => {
        if (settled) return;
        finish();
        controller.close();
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      finish();
      res.destroy();
    },
  });
  if (signal?.aborted) onAbort();
  return body;
}

function normalizedMethod(method: string): string {
  const upper = method.toUpperCase();
  return ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"].includes(upper) ? upper : method;
}

/** A body fetch would send as is: text (utf-8) or bytes; and the content-type fetch gives text. */
function requestBody(body: RequestInit["body"]): { bytes: Buffer | null; type?: string } {
  if (body === undefined || body === null) return { bytes: null };
  if (typeof body === "string") return { bytes: Buffer.from(body, "utf8"), type: "text/plain;charset=UTF-8" };
  if (body instanceof ArrayBuffer) return { bytes: Buffer.from(body) };
  if (ArrayBuffer.isView(body)) return { bytes: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
  throw new TypeError(`Cairn's model transport sends a body of text or bytes, not ${Object.prototype.toString.call(body)}.`);
}

/** A fetch on node:http and node:https (see the top of this file). */
export async function httpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const signal = init.signal ?? undefined;
  const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  let url: URL;
  try {
    url = new URL(href);
  } catch (error) {
    throw new TypeError(`Failed to parse URL from ${href}`, { cause: error });
  }
  let method = normalizedMethod(init.method ?? "GET");
  const headers = new FetchHeaders(init.headers);
  const body = requestBody(init.body);
  if (body.bytes !== null && (method === "GET" || method === "HEAD")) throw new TypeError("Request with GET/HEAD method cannot have body.");
  if (body.type && !headers.has("content-type")) headers.set("content-type", body.type);
  // What fetch adds to every request it sends.
  for (const [name, value] of [["accept", "*/*"], ["accept-language", "*"], ["sec-fetch-mode", "cors"], ["user-agent", "node"]] as const) {
    if (!headers.has(name)) headers.set(name, value);
  }
  const ownEncoding = !headers.has("accept-encoding");
  headers.delete("host");
  let bytes = body.bytes;
  if (signal?.aborted) throw signal.reason;

  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== "http:" && url.protocol !== "https:") throw fetchFailed(new Error(`URL scheme "${url.protocol.slice(0, -1)}" is not supported.`));
    if (ownEncoding) headers.set("accept-encoding", url.protocol === "https:" ? "br, gzip, deflate" : "gzip, deflate");
    const incoming = await send(url, { method, headers, body: bytes, signal });
    const { res } = incoming;
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    const follow = redirectStatuses.has(status) && location !== undefined && (init.redirect ?? "follow") !== "manual";
    if (!follow) {
      return fetchResponse(webBody(incoming, method, signal), {
        status,
        statusText: res.statusMessage ?? "",
        headers: rawPairs(res.rawHeaders),
        url: url.href,
        redirected: redirects > 0,
        type: "basic",
      });
    }
    res.resume(); // the redirect's own body is dropped; the connection stays for the next hop
    if (init.redirect === "error") throw fetchFailed(new Error("unexpected redirect"));
    if (redirects === maxRedirects) throw fetchFailed(new Error("redirect count exceeded"));
    let next: URL;
    try {
      next = new URL(location, url);
    } catch (error) {
      throw fetchFailed(error);
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") throw fetchFailed(new Error("URL scheme must be a HTTP(S) scheme"));
    if (((status === 301 || status === 302) && method === "POST") || (status === 303 && method !== "GET" && method !== "HEAD")) {
      method = "GET";
      bytes = null;
      for (const name of bodyHeaders) headers.delete(name);
    }
    if (next.origin !== url.origin) for (const name of crossOriginDropped) headers.delete(name);
    url = next;
  }
}

/** Node's raw header list as name and value pairs (repeats kept, for set-cookie and joining). */
function rawPairs(raw: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
  return pairs;
}
