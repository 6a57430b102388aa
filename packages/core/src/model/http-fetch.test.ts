import { createServer as createHttpsServer } from "node:https";
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { httpFetch } from "./http-fetch.js";
import { selfSigned } from "../../../../test/support/self-signed-cert.js";

/** Real servers on 127.0.0.1, closed after each test; `connections` counts the sockets they accepted. */
const open: Array<HttpServer | NetServer> = [];
afterEach(async () => {
  for (const server of open.splice(0)) {
    (server as HttpServer).closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});


type Seen = { method: string; url: string; headers: IncomingMessage["headers"]; rawHeaders: string[]; body: string };

async function listen<T extends HttpServer | NetServer>(server: T): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  server.on("connection", () => connections++);
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, connections: () => connections };
}

async function http(handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<{ url: string; connections: () => number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createHttpServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, body };
      seen.push(request);
      handler(req, res, request);
    });
  });
  return { ...(await listen(server)), seen };
}

/** A raw TCP server: `onData` answers (or breaks) the connection however a test needs. */
async function raw(onData: (socket: Socket) => void): Promise<{ url: string; connections: () => number }> {
  return listen(createNetServer((socket) => socket.once("data", () => onData(socket))));
}

/** What a failure looks like along its cause chain: what the AI SDK and classify-error.ts read. */
function shape(error: unknown): Array<{ name: string; message: string; code?: unknown }> {
  const out: Array<{ name: string; message: string; code?: unknown }> = [];
  for (let at = error as { name?: string; message?: string; code?: unknown; cause?: unknown } | undefined, depth = 0; at && depth < 4; at = at.cause as typeof at, depth++) {
    out.push({ name: String(at.name), message: String(at.message), ...(typeof at.code === "string" ? { code: at.code } : {}) });
  }
  return out;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

/** The body read to its end, or how reading it failed. */
async function readBody(response: Response): Promise<{ text: string } | { error: unknown }> {
  try {
    return { text: await response.text() };
  } catch (error) {
    return { error };
  }
}

describe("httpFetch answers as fetch does", () => {
  it("status, status text, url, and headers lowercase, repeats joined, set-cookie on its own, sorted", async () => {
    const server = await http((_req, res) => {
      res.writeHead(201, "Made It", { "X-Multi": ["a", "b"], "Set-Cookie": ["c=1", "d=2"], "Content-Type": "application/json", "Content-Length": "11" });
      res.end('{"ok":true}');
    });
    const response = await httpFetch(`${server.url}/v1/x`, { method: "POST", body: "{}" });
    expect([response.status, response.statusText, response.ok, response.url, response.redirected]).toEqual([201, "Made It", true, `${server.url}/v1/x`, false]);
    expect(response.headers.get("x-multi")).toBe("a, b");
    expect(response.headers.get("X-MULTI")).toBe("a, b");
    expect(response.headers.has("content-type")).toBe(true);
    expect(response.headers.getSetCookie()).toEqual(["c=1", "d=2"]);
    const entries = [...response.headers].filter(([name]) => name !== "date" && name !== "keep-alive" && name !== "connection");
    expect(entries).toEqual([
      ["content-length", "11"],
      ["content-type", "application/json"],
      ["set-cookie", "c=1"],
      ["set-cookie", "d=2"],
      ["x-multi", "a, b"],
    ]);
    // What the AI SDK does with them (extractResponseHeaders), compared with the global fetch's answer.
    const global = await fetch(`${server.url}/v1/x`, { method: "POST", body: "{}" });
    await global.text();
    const sdkView = (headers: Iterable<[string, string]>) => Object.fromEntries([...headers].filter(([name]) => name !== "date"));
    expect(sdkView(response.headers)).toEqual(sdkView(global.headers));
    expect(await response.json()).toEqual({ ok: true });
    expect(response.bodyUsed).toBe(true);
  });

  it("sends what fetch sends: the same headers in the same order, content-length, and the body", async () => {
    const server = await http((_req, res) => res.end("ok"));
    const init = { method: "post", headers: { "Content-Type": "application/json", "x-api-key": " k ", "user-agent": "ai-sdk/x" }, body: '{"a":"é"}' };
    await (await httpFetch(`${server.url}/v1/messages`, init)).text();
    await (await fetch(`${server.url}/v1/messages`, init)).text();
    const [ours, theirs] = server.seen;
    const named = (request: Seen) => request.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    expect(named(ours!)).toEqual(named(theirs!));
    expect({ ...ours!.headers, host: "" }).toEqual({ ...theirs!.headers, host: "" });
    expect(ours!.headers["x-api-key"]).toBe("k");
    expect([ours!.method, ours!.body, ours!.headers["content-length"]]).toEqual(["POST", '{"a":"é"}', "10"]);
  });

  it("takes headers as pairs or a Headers-like object, and refuses a value fetch refuses, in fetch's words", async () => {
    const server = await http((_req, res) => res.end("ok"));
    await (await httpFetch(server.url, { headers: [["X-A", "1"], ["x-a", "2"]] })).text();
    await (await httpFetch(server.url, { headers: new Headers({ "x-b": "3" }) })).text();
    expect(server.seen[0]!.headers["x-a"]).toBe("1, 2");
    expect(server.seen[1]!.headers["x-b"]).toBe("3");
    const bad = await failure(httpFetch(server.url, { headers: { authorization: "Bearer a\nb" } }));
    expect(bad).toBeInstanceOf(TypeError);
    expect((bad as Error).message).toMatch(/invalid header value/);
    expect(server.seen).toHaveLength(2);
  });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["deflate", deflateRawSync],
    ["br", brotliCompressSync],
  ] as const)("decodes a %s body, having asked for it as fetch does", async (coding, compress) => {
    const text = "data: {}\n\n".repeat(200);
    const server = await http((_req, res) => {
      res.writeHead(200, { "content-encoding": coding, "content-type": "text/event-stream" });
      res.end(compress(Buffer.from(text)));
    });
    const response = await httpFetch(server.url, { method: "POST", body: "{}" });
    expect(await response.text()).toBe(text);
    expect(server.seen[0]!.headers["accept-encoding"]).toBe("gzip, deflate");
  });

  it("keeps the connection: two requests in a row go over one socket", async () => {
    const server = await http((_req, res) => res.end("ok"));
    expect(await (await httpFetch(server.url, { method: "POST", body: "1" })).text()).toBe("ok");
    expect(await (await httpFetch(server.url, { method: "POST", body: "2" })).text()).toBe("ok");
    expect(server.seen.map((s) => s.body)).toEqual(["1", "2"]);
    expect(server.connections()).toBe(1);
  });

  it("keeps a TLS connection too: three requests, one handshake", async () => {
    const server = createHttpsServer(selfSigned, (_req, res) => res.end("ok"));
    let handshakes = 0;
    server.on("secureConnection", () => handshakes++);
    const { url } = await listen(server);
    // The certificate is the test's own; what is counted is the handshakes, not the trust.
    const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    try {
      const https = url.replace("http:", "https:");
      for (const n of [1, 2, 3]) expect(await (await httpFetch(https, { method: "POST", body: String(n) })).text()).toBe("ok");
    } finally {
      if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
    }
    expect(handshakes).toBe(1);
  });

  it("follows redirects by fetch's rules: 302 turns a POST into a GET without its body, 307 keeps both, another origin gets no authorization", async () => {
    const other = await http((_req, res) => res.end("there"));
    const server = await http((req, res) => {
      if (req.url === "/found") res.writeHead(302, { location: "/landed" }).end();
      else if (req.url === "/temporary") res.writeHead(307, { location: "/landed" }).end();
      else if (req.url === "/away") res.writeHead(308, { location: `${other.url}/far` }).end();
      else res.end("landed");
    });
    const init = { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer k" }, body: "{}" };
    const found = await httpFetch(`${server.url}/found`, init);
    expect([await found.text(), found.redirected, found.url]).toEqual(["landed", true, `${server.url}/landed`]);
    expect(server.seen[1]).toMatchObject({ method: "GET", body: "" });
    expect(server.seen[1]!.headers["content-type"]).toBeUndefined();
    await (await httpFetch(`${server.url}/temporary`, init)).text();
    expect(server.seen[3]).toMatchObject({ method: "POST", body: "{}" });
    await (await httpFetch(`${server.url}/away`, init)).text();
    expect(other.seen[0]).toMatchObject({ method: "POST", body: "{}" });
    expect(other.seen[0]!.headers.authorization).toBeUndefined();
    expect(server.seen[4]!.headers.authorization).toBe("Bearer k");
  });

  it("a redirect to another origin does not carry a provider's API key (x-api-key, api-key, x-goog-api-key); one to the same origin does", async () => {
    const other = await http((_req, res) => res.end("there"));
    const server = await http((req, res) => {
      if (req.url === "/away") res.writeHead(307, { location: `${other.url}/collect` }).end();
      else if (req.url === "/here") res.writeHead(307, { location: "/landed" }).end();
      else res.end("landed");
    });
    const init = { method: "POST", headers: { "x-api-key": "sk-ant-secret", "api-key": "azure-secret", "x-goog-api-key": "google-secret" }, body: "{}" };
    await (await httpFetch(`${server.url}/away`, init)).text();
    expect(JSON.stringify(other.seen)).not.toMatch(/secret/);
    expect(other.seen[0]).toMatchObject({ method: "POST", body: "{}" });
    // The positive control: the same origin's next hop still gets every key.
    await (await httpFetch(`${server.url}/here`, init)).text();
    expect(server.seen.at(-1)!.headers).toMatchObject({ "x-api-key": "sk-ant-secret", "api-key": "azure-secret", "x-goog-api-key": "google-secret" });
  });

  it("clones: both copies read the whole body", async () => {
    const server = await http((_req, res) => res.end("twice"));
    const response = await httpFetch(server.url);
    const copy = response.clone();
    expect([await response.text(), await copy.text()]).toEqual(["twice", "twice"]);
  });
});

describe("httpFetch fails as fetch does", () => {
  /** The same request through httpFetch and the global fetch: the shape of each failure, head or body. */
  async function both(url: string, init: RequestInit = { method: "POST", body: "{}" }) {
    const outcome = async (run: typeof fetch) => {
      try {
        const response = await run(url, init);
        const body = await readBody(response);
        return "error" in body ? { body: shape(body.error) } : { text: body.text };
      } catch (error) {
        return { head: shape(error) };
      }
    };
    return { ours: await outcome(httpFetch), theirs: await outcome(fetch) };
  }

  it("a refused connection: TypeError 'fetch failed' with Node's ECONNREFUSED as cause", async () => {
    const server = await raw(() => undefined);
    const port = new URL(server.url).port;
    open.pop()!.close();
    const { ours, theirs } = await both(server.url);
    expect(ours).toEqual(theirs);
    expect(ours).toEqual({ head: [{ name: "TypeError", message: "fetch failed" }, { name: "Error", message: `connect ECONNREFUSED 127.0.0.1:${port}`, code: "ECONNREFUSED" }] });
  });

  it("a bad port is refused before any connection", async () => {
    const { ours, theirs } = await both("http://127.0.0.1:6000/v1");
    expect(ours).toEqual(theirs);
    expect(ours).toEqual({ head: [{ name: "TypeError", message: "fetch failed" }, { name: "Error", message: "bad port" }] });
  });

  it.each([
    ["closes before answering", (socket: Socket): void => void socket.end(), "head", "UND_ERR_SOCKET"],
    ["resets before answering", (socket: Socket): void => void socket.resetAndDestroy(), "head", "ECONNRESET"],
    ["closes mid-body", (socket: Socket): void => void socket.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc", () => setTimeout(() => socket.end(), 50)), "body", "UND_ERR_SOCKET"],
    ["resets mid-body", (socket: Socket): void => void socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n", () => setTimeout(() => socket.resetAndDestroy(), 50)), "body", "ECONNRESET"],
    ["answers in something other than HTTP", (socket: Socket): void => void socket.end("SSH-2.0-OpenSSH_9.6\r\n"), "head", "HPE_INVALID_CONSTANT"],
  ] as const)("a server that %s", async (_what, onData, where, code) => {
    const server = await raw(onData);
    const { ours, theirs } = await both(server.url);
    const failed = (ours as Partial<Record<"head" | "body", ReturnType<typeof shape>>>)[where];
    expect(failed?.[0]).toEqual({ name: "TypeError", message: where === "head" ? "fetch failed" : "terminated" });
    expect(failed?.[1]?.code).toBe(code);
    // llhttp's reason reads "Expected HTTP/, RTSP/ or ICE/" in node:http, "Expected HTTP/" in undici.
    if (code === "HPE_INVALID_CONSTANT") expect(failed?.[1]?.message).toMatch(/^Response does not match the HTTP\/1\.1 protocol \(Expected HTTP\//);
    else expect(ours).toEqual(theirs);
  });

  it("an abort before sending rejects with the signal's reason", async () => {
    const server = await http((_req, res) => res.end("ok"));
    const reason = new Error("stop");
    expect(await failure(httpFetch(server.url, { signal: AbortSignal.abort(reason) }))).toBe(reason);
    expect(server.connections()).toBe(0);
  });

  it("an abort while waiting for the answer rejects with the reason and closes the request", async () => {
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const server = await http((req) => req.socket.once("close", closed));
    const controller = new AbortController();
    const pending = httpFetch(server.url, { method: "POST", body: "{}", signal: controller.signal });
    while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const error = await failure(pending);
    expect(shape(error)).toEqual([{ name: "AbortError", message: "This operation was aborted" }]);
    await gone;
  });

  it("an abort mid-body errors the stream with the reason, after the chunks so far", async () => {
    const server = await http((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: 1\n\n");
    });
    const controller = new AbortController();
    const response = await httpFetch(server.url, { method: "POST", body: "{}", signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: 1\n\n");
    const reason = new Error("the person pressed Esc");
    controller.abort(reason);
    expect(await failure(reader.read())).toBe(reason);
  });
});
