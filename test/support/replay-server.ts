/**
 * The replay server: serves streams that real providers sent, byte for byte and with their chunking
 * (one socket write per recorded chunk, each flushed before the next), on the provider's real path
 * (`/v1/chat/completions` or `/v1/messages`), so the real SDKs inside the real `cairn` read exactly
 * what the provider sent. Each request takes the next recorded response; once they are used up, one
 * scripted `finish` turn (usually attempt_completion) lets the task end, encoded by the scripted
 * model server's own wire code. A request after that gets a 400, so a run that keeps asking fails.
 *
 *   const server = await startReplayServer({ wire: "openai", responses: [{ status: 200, headers, chunks }], finish });
 *   // cairn run --provider openai-compatible --base-url `${server.url}/v1` ...
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicStreamFrames } from "./scripted-model/anthropic-wire.js";
import { openaiStreamFrames } from "./scripted-model/openai-wire.js";
import { planTurn } from "./scripted-model/turn-plan.js";
import type { RecordedRequest, ScriptedTurn, Wire } from "./scripted-model/types.js";

/** One HTTP response as a provider sent it: status, headers, and the body in the pieces it arrived in. */
export type ReplayResponse = {
  status: number;
  headers: Record<string, string>;
  chunks: string[];
  /**
   * Served only to a retry (a request whose body repeats the one before it): what the endpoint
   * would send again if asked again. A new request skips it, as the endpoint would have answered
   * that request with something else.
   */
  retryOnly?: boolean;
};

export type ReplayScript = {
  wire: Wire;
  responses: ReplayResponse[];
  /** Served after the recorded responses, once. */
  finish?: ScriptedTurn;
  /** The finish reports no usage either, as a server that reported none in its recording would not (OpenAI wire). */
  finishWithoutUsage?: boolean;
};

export interface ReplayServer {
  /** http://127.0.0.1:PORT (no /v1). */
  readonly url: string;
  /** Every request Cairn sent, in order; `body` parsed from JSON. */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

const paths: Record<Wire, string> = { anthropic: "/v1/messages", openai: "/v1/chat/completions" };

export async function startReplayServer(script: ReplayScript): Promise<ReplayServer> {
  const requests: RecordedRequest[] = [];
  let finishServed = false;
  let next = 0;
  let previousRaw: string | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const raw = await readBody(req);
    if (req.method !== "POST" || path !== paths[script.wire]) {
      return sendJson(res, 404, { error: { type: "not_found_error", message: `replay server: no endpoint ${req.method} ${path}; this recording is served at POST ${paths[script.wire]}` } });
    }
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    const index = requests.push({ wire: script.wire, path, headers: { ...req.headers }, body }) - 1;
    const retry = raw === previousRaw;
    previousRaw = raw;
    while (!retry && script.responses[next]?.retryOnly) next++;
    const recorded = script.responses[next];
    if (recorded) next++;
    if (recorded) return replay(res, recorded);
    if (script.finish && !finishServed && typeof body === "object" && body !== null) {
      finishServed = true;
      const plan = planTurn(script.finish, { wire: script.wire, requestNumber: index + 1, body, bodyChars: raw.length });
      const frames = script.wire === "anthropic" ? anthropicStreamFrames(plan) : openaiStreamFrames(plan, { includeUsage: !script.finishWithoutUsage });
      return replay(res, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8" }, chunks: frames.map((f) => f.text) });
    }
    sendJson(res, 400, {
      type: "error",
      error: { type: "invalid_request_error", message: `replay server: request #${index + 1} came after the recording and its finish were served; nothing is left to replay` },
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      })),
  };
}

/** Writes the recorded chunks one socket write each, waiting for each to flush, then ends the response. */
async function replay(res: ServerResponse, recorded: ReplayResponse): Promise<void> {
  res.writeHead(recorded.status, recorded.headers);
  res.flushHeaders();
  for (const chunk of recorded.chunks) {
    if (res.destroyed) return;
    await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
  }
  res.end();
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
