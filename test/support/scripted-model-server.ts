/**
 * The scripted model server: the one test double in Cairn. A local HTTP server that speaks the
 * Anthropic Messages and OpenAI Chat Completions protocols (streaming and not), answering each
 * request with the next scripted turn, so real provider SDKs talk to it unchanged.
 *
 *   const server = await startScriptedModelServer({ turns: [{ content: [{ type: "text", text: "hi" }] }] });
 *   createAnthropic({ baseURL: `${server.url}/v1`, apiKey: "test" });
 *
 * Faults: `{ fault: { status: 429, retryAfter: "2" } }`, `{ fault: { status: 529 } }` (overloaded),
 * `contextWindowFault()` (a 400 with each provider's real context-window body), a cut stream with
 * `cutAfterChars` (socket reset; `cutMode: "end"` closes cleanly without a finish reason, `cutMode: "stall"`
 * goes silent mid-stream), a server that hangs before the first byte with `delayMs`, and non-API answers
 * such as `{ fault: { status: 200, body: "" } }` or `{ fault: { status: 200, body: "<html>…", contentType: "text/html" } }`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { anthropicErrorBody, anthropicMessage, anthropicStreamFrames } from "./scripted-model/anthropic-wire.js";
import { openaiCompletion, openaiErrorBody, openaiStreamFrames } from "./scripted-model/openai-wire.js";
import { planTurn, type SseFrame, type TurnPlan } from "./scripted-model/turn-plan.js";
import type {
  RecordedRequest,
  ScriptedCutMode,
  ScriptedFault,
  ScriptedModelServer,
  ScriptedResponder,
  ScriptedTurn,
  Wire,
} from "./scripted-model/types.js";

export type {
  RecordedRequest,
  ScriptedContent,
  ScriptedCutMode,
  ScriptedFault,
  ScriptedModelServer,
  ScriptedResponder,
  ScriptedStopReason,
  ScriptedTurn,
  ScriptedUsage,
  Wire,
} from "./scripted-model/types.js";
export { anthropicContextWindowMessage } from "./scripted-model/anthropic-wire.js";
export { openaiContextWindowMessage } from "./scripted-model/openai-wire.js";

/**
 * A 400 whose body is the provider's real "prompt too long" error: Anthropic's
 * `prompt is too long: 250000 tokens > 200000 maximum`, OpenAI's `context_length_exceeded`.
 * Same as `{ status: 400 }`; the server picks the body for the wire the request came in on.
 */
export function contextWindowFault(): ScriptedFault {
  return { status: 400 };
}

type WireProtocol = {
  path: string;
  requestIdHeader: string;
  streamFrames(plan: TurnPlan, body: Record<string, unknown>): SseFrame[];
  json(plan: TurnPlan): unknown;
  errorBody(status: number, message?: string): unknown;
};

const protocols: Record<Wire, WireProtocol> = {
  anthropic: {
    path: "/v1/messages",
    requestIdHeader: "request-id",
    streamFrames: (plan) => anthropicStreamFrames(plan),
    json: anthropicMessage,
    errorBody: anthropicErrorBody,
  },
  openai: {
    path: "/v1/chat/completions",
    requestIdHeader: "x-request-id",
    streamFrames: (plan, body) => openaiStreamFrames(plan, { includeUsage: includesUsage(body) }),
    json: openaiCompletion,
    errorBody: openaiErrorBody,
  },
};

export async function startScriptedModelServer(
  options: { turns?: ScriptedTurn[]; responder?: ScriptedResponder } = {},
): Promise<ScriptedModelServer> {
  const queue: ScriptedTurn[] = [...(options.turns ?? [])];
  const requests: RecordedRequest[] = [];
  const shutdown = new AbortController();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const wire = req.method === "POST" ? wireForPath(path) : undefined;
    if (wire === undefined) return sendUnknownEndpoint(req, res, path);
    const protocol = protocols[wire];

    const raw = await readBody(req);
    const body = parseJsonObject(raw);
    const recorded: RecordedRequest = { wire, path, headers: { ...req.headers }, body: body ?? raw };
    const index = requests.push(recorded) - 1;
    const requestNumber = index + 1;
    const requestId = `req_scripted_${requestNumber}`;
    const fail = (status: number, message: string) =>
      sendJson(res, status, protocol.errorBody(status, message), { [protocol.requestIdHeader]: requestId });

    if (body === undefined) {
      return fail(400, `scripted model server: request #${requestNumber} body is not a JSON object; send application/json`);
    }
    const turn = queue.shift() ?? options.responder?.(recorded, index);
    if (turn === undefined) {
      return fail(
        500,
        `scripted model server: no turn left for request #${requestNumber}; enqueue more turns or pass a responder`,
      );
    }

    const signal = AbortSignal.any([shutdown.signal, closeSignal(res)]);
    if (turn.delayMs !== undefined && !(await pause(turn.delayMs, signal))) return;

    const headers: Record<string, string> = { [protocol.requestIdHeader]: requestId };
    if (turn.fault !== undefined) return sendFault(res, turn.fault, protocol, headers);

    const plan = planTurn(turn, { wire, requestNumber, body, bodyChars: raw.length });
    if (body.stream !== true) return sendTurnJson(res, protocol.json(plan), turn, signal, headers);
    return streamFrames(res, protocol.streamFrames(plan, body), turn, signal, headers);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const message = error instanceof Error ? error.message : String(error);
      sendJson(res, 500, { type: "error", error: { type: "api_error", message: `scripted model server: ${message}` } });
    });
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
    enqueue: (...turns) => void queue.push(...turns),
    remaining: () => queue.length,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        shutdown.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function wireForPath(path: string): Wire | undefined {
  if (path === protocols.anthropic.path) return "anthropic";
  if (path === protocols.openai.path) return "openai";
  return undefined;
}

function includesUsage(body: Record<string, unknown>): boolean {
  const streamOptions = body.stream_options;
  return typeof streamOptions === "object" && streamOptions !== null && "include_usage" in streamOptions
    ? streamOptions.include_usage === true
    : false;
}

async function streamFrames(
  res: ServerResponse,
  frames: SseFrame[],
  turn: ScriptedTurn,
  signal: AbortSignal,
  headers: Record<string, string>,
): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers });
  res.flushHeaders();
  const cutAt = turn.cutAfterChars;
  let contentSent = 0;
  for (const [position, frame] of frames.entries()) {
    const cutHere = cutAt !== undefined && (frame.final || (frame.contentChars > 0 && contentSent >= cutAt));
    if (cutHere) return cut(res, turn.cutMode, signal);
    if (position > 0 && turn.chunkDelayMs !== undefined && !(await pause(turn.chunkDelayMs, signal))) return;
    if (!(await write(res, frame.text, signal))) return;
    contentSent += frame.contentChars;
  }
  res.end();
}

/**
 * With cutAfterChars, the response sends half the body, then drops the socket (having declared the full
 * length), ends it cleanly (chunked, so the short body is complete as far as HTTP goes), or stalls.
 */
async function sendTurnJson(
  res: ServerResponse,
  payload: unknown,
  turn: ScriptedTurn,
  signal: AbortSignal,
  headers: Record<string, string>,
): Promise<void> {
  if (turn.cutAfterChars === undefined) return sendJson(res, 200, payload, headers);
  const text = JSON.stringify(payload);
  const length = turn.cutMode === "end" ? {} : { "content-length": Buffer.byteLength(text) };
  res.writeHead(200, { "content-type": "application/json", ...length, ...headers });
  if (!(await write(res, text.slice(0, Math.floor(text.length / 2)), signal))) return;
  return cut(res, turn.cutMode, signal);
}

/** Stops a response mid-way: a reset socket, a clean end without the rest, or silence until the client leaves. */
async function cut(res: ServerResponse, mode: ScriptedCutMode = "reset", signal: AbortSignal): Promise<void> {
  if (mode === "reset") return void res.destroy();
  if (mode === "end") return void res.end();
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

function sendFault(res: ServerResponse, fault: ScriptedFault, protocol: WireProtocol, headers: Record<string, string>): void {
  const faultHeaders = { ...headers, ...(fault.retryAfter !== undefined ? { "retry-after": fault.retryAfter } : {}) };
  if (typeof fault.body === "string") {
    res.writeHead(fault.status, { "content-type": fault.contentType ?? "text/plain; charset=utf-8", ...faultHeaders });
    return void res.end(fault.body);
  }
  sendJson(res, fault.status, fault.body ?? protocol.errorBody(fault.status, fault.message), faultHeaders);
}

function sendUnknownEndpoint(req: IncomingMessage, res: ServerResponse, path: string): void {
  req.resume();
  // Shaped to parse as an error under both the Anthropic and the OpenAI error schemas.
  sendJson(res, 404, {
    type: "error",
    error: {
      type: "not_found_error",
      message:
        `scripted model server: no endpoint ${req.method} ${path}; use POST /v1/messages (Anthropic) or ` +
        `POST /v1/chat/completions (OpenAI), with the SDK's base URL set to \`\${server.url}/v1\``,
    },
  });
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJsonObject(raw: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Aborts when the connection closes before the response is finished (client gone, or server closing). */
function closeSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => controller.abort());
  return controller.signal;
}

/** Resolves false when aborted instead of throwing, so callers just stop. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch (error) {
    if (signal.aborted) return false;
    throw error;
  }
}

/** One frame, one socket write; resolves once it is flushed (false if the connection went away). */
function write(res: ServerResponse, text: string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
    res.write(text, (error) => {
      signal.removeEventListener("abort", onAbort);
      resolve(error == null);
    });
  });
}
