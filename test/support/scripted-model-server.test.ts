import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3FunctionTool,
  type LanguageModelV3StreamPart,
  type LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import {
  anthropicContextWindowMessage,
  contextWindowFault,
  openaiContextWindowMessage,
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedTurn,
  type Wire,
} from "./scripted-model-server.js";

const apiKey = "sk-scripted-test";

const readFileTool: LanguageModelV3FunctionTool = {
  type: "function",
  name: "read_file",
  description: "Read a file from the workspace.",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

const callOptions: LanguageModelV3CallOptions = {
  prompt: [
    { role: "system", content: "You are terse." },
    { role: "user", content: [{ type: "text", text: "What is in README.md?" }] },
  ],
  tools: [readFileTool],
};

type Provider = {
  name: string;
  wire: Wire;
  model(server: ScriptedModelServer): LanguageModelV3;
  /** The SDK's usage for input 100 (+ cache read 30, cache write 20) and output 7. */
  expectedUsage: LanguageModelV3Usage["inputTokens"];
  rawStopReasons: { end_turn: string; max_tokens: string; tool_use: string; stop_sequence: string };
};

const providers: Provider[] = [
  {
    name: "@ai-sdk/anthropic",
    wire: "anthropic",
    model: (server) => createAnthropic({ baseURL: `${server.url}/v1`, apiKey }).languageModel("claude-scripted-1"),
    expectedUsage: { total: 150, noCache: 100, cacheRead: 30, cacheWrite: 20 },
    rawStopReasons: { end_turn: "end_turn", max_tokens: "max_tokens", tool_use: "tool_use", stop_sequence: "stop_sequence" },
  },
  {
    name: "@ai-sdk/openai chat",
    wire: "openai",
    model: (server) => createOpenAI({ baseURL: `${server.url}/v1`, apiKey }).chat("gpt-4o"),
    expectedUsage: { total: 150, noCache: 120, cacheRead: 30, cacheWrite: undefined },
    rawStopReasons: { end_turn: "stop", max_tokens: "length", tool_use: "tool_calls", stop_sequence: "stop" },
  },
  {
    name: "@ai-sdk/openai-compatible",
    wire: "openai",
    model: (server) =>
      createOpenAICompatible({ name: "scripted", baseURL: `${server.url}/v1`, apiKey, includeUsage: true }).chatModel(
        "deepseek-scripted",
      ),
    expectedUsage: { total: 150, noCache: 120, cacheRead: 30, cacheWrite: undefined },
    rawStopReasons: { end_turn: "stop", max_tokens: "length", tool_use: "tool_calls", stop_sequence: "stop" },
  },
];

let servers: ScriptedModelServer[] = [];

async function startServer(options?: Parameters<typeof startScriptedModelServer>[0]): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer(options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

type Collected = {
  parts: LanguageModelV3StreamPart[];
  failure: unknown;
  /** Non-empty text deltas (the OpenAI SDK passes on the empty `content: ""` of the role chunk). */
  textDeltas: string[];
  reasoningText: string;
  toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>;
  finish: Extract<LanguageModelV3StreamPart, { type: "finish" }> | undefined;
};

async function streamTurn(model: LanguageModelV3, options: Partial<LanguageModelV3CallOptions> = {}): Promise<Collected> {
  const { stream } = await model.doStream({ ...callOptions, ...options });
  const parts: LanguageModelV3StreamPart[] = [];
  let failure: unknown;
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  } catch (error) {
    failure = error;
  }
  return {
    parts,
    failure: failure ?? parts.find((part) => part.type === "error")?.error,
    textDeltas: parts.flatMap((part) => (part.type === "text-delta" && part.delta !== "" ? [part.delta] : [])),
    reasoningText: parts.flatMap((part) => (part.type === "reasoning-delta" ? [part.delta] : [])).join(""),
    toolCalls: parts.flatMap((part) =>
      part.type === "tool-call" ? [{ toolCallId: part.toolCallId, toolName: part.toolName, input: JSON.parse(part.input) }] : [],
    ),
    finish: parts.find((part) => part.type === "finish"),
  };
}

async function apiCallError(promise: Promise<unknown>): Promise<APICallError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!APICallError.isInstance(error)) throw new Error(`expected an APICallError, got ${String(error)}`);
  return error;
}

describe.each(providers)("through $name", (provider) => {
  it("streams text in chunkSize deltas, finishes with stop, and records the request", async () => {
    const text = "README.md describes Cairn, a coding agent.";
    const server = await startServer({ turns: [{ content: [{ type: "text", text }], chunkSize: 8 }] });

    const result = await streamTurn(provider.model(server));

    expect(result.failure).toBeUndefined();
    expect(result.textDeltas.join("")).toBe(text);
    expect(result.textDeltas).toHaveLength(Math.ceil(text.length / 8));
    expect(result.finish?.finishReason).toEqual({ unified: "stop", raw: provider.rawStopReasons.end_turn });
    expect(server.remaining()).toBe(0);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.wire).toBe(provider.wire);
    expect(request?.path).toBe(provider.wire === "anthropic" ? "/v1/messages" : "/v1/chat/completions");
    expect(request?.body.stream).toBe(true);
    expect(JSON.stringify(request?.body.messages)).toContain("What is in README.md?");
    expect(JSON.stringify(request?.body.tools)).toContain("read_file");
  });

  it("streams tool calls with their JSON input, keeping given ids and generating missing ones", async () => {
    const server = await startServer({
      turns: [
        {
          content: [
            { type: "text", text: "Reading both." },
            { type: "tool_use", id: "call_given", name: "read_file", input: { path: "README.md" } },
            { type: "tool_use", name: "read_file", input: { path: "docs/guide.md", options: { lines: [1, 40] } } },
          ],
          chunkSize: 4,
        },
      ],
    });

    const result = await streamTurn(provider.model(server));

    expect(result.failure).toBeUndefined();
    expect(result.textDeltas.join("")).toBe("Reading both.");
    expect(result.toolCalls).toHaveLength(2);
    expect(result.toolCalls[0]).toEqual({ toolCallId: "call_given", toolName: "read_file", input: { path: "README.md" } });
    expect(result.toolCalls[1]?.input).toEqual({ path: "docs/guide.md", options: { lines: [1, 40] } });
    expect(result.toolCalls[1]?.toolCallId).toMatch(provider.wire === "anthropic" ? /^toolu_/ : /^call_/);
    const inputDeltas = result.parts.filter((part) => part.type === "tool-input-delta");
    expect(inputDeltas.length).toBeGreaterThan(2);
    expect(result.finish?.finishReason).toEqual({ unified: "tool-calls", raw: provider.rawStopReasons.tool_use });
  });

  it("reports max_tokens as a length finish", async () => {
    const server = await startServer({ turns: [{ content: [{ type: "text", text: "Trunc" }], stopReason: "max_tokens" }] });

    const result = await streamTurn(provider.model(server));

    expect(result.finish?.finishReason).toEqual({ unified: "length", raw: provider.rawStopReasons.max_tokens });
  });

  it("reports stop_sequence as a stop finish", async () => {
    const server = await startServer({ turns: [{ content: [{ type: "text", text: "Done" }], stopReason: "stop_sequence" }] });

    const result = await streamTurn(provider.model(server), { stopSequences: ["END"] });

    expect(result.finish?.finishReason).toEqual({ unified: "stop", raw: provider.rawStopReasons.stop_sequence });
  });

  it("reports usage including cache reads and writes", async () => {
    const usage = { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 30, cache_creation_input_tokens: 20 };
    const server = await startServer({ turns: [{ content: [{ type: "text", text: "ok" }], usage }] });

    const result = await streamTurn(provider.model(server));

    expect(result.finish?.usage.inputTokens).toEqual(provider.expectedUsage);
    expect(result.finish?.usage.outputTokens.total).toBe(7);
  });

  it("estimates usage when the turn gives none", async () => {
    const server = await startServer({ turns: [{ content: [{ type: "text", text: "x".repeat(40) }] }] });

    const result = await streamTurn(provider.model(server));

    expect(result.finish?.usage.inputTokens.total).toBeGreaterThan(10);
    expect(result.finish?.usage.outputTokens.total).toBe(10);
  });

  it("surfaces a 429 fault as a retryable APICallError with retry-after", async () => {
    const server = await startServer({ turns: [{ fault: { status: 429, retryAfter: "7" } }] });

    const error = await apiCallError(streamTurn(provider.model(server)));

    expect(error.statusCode).toBe(429);
    expect(error.isRetryable).toBe(true);
    expect(error.responseHeaders?.["retry-after"]).toBe("7");
    expect(error.message).toMatch(/rate limit/i);
    expect(server.requests).toHaveLength(1);
  });

  it("surfaces contextWindowFault() with the provider's real prompt-too-long body", async () => {
    const server = await startServer({ turns: [{ fault: contextWindowFault() }] });

    const error = await apiCallError(streamTurn(provider.model(server)));

    expect(error.statusCode).toBe(400);
    expect(error.isRetryable).toBe(false);
    if (provider.wire === "anthropic") {
      expect(error.message).toBe(anthropicContextWindowMessage);
      expect(JSON.parse(error.responseBody ?? "")).toEqual({
        type: "error",
        error: { type: "invalid_request_error", message: anthropicContextWindowMessage },
      });
    } else {
      expect(error.message).toBe(openaiContextWindowMessage);
      expect(JSON.parse(error.responseBody ?? "").error.code).toBe("context_length_exceeded");
    }
  });

  it("uses a fault's own message and body when given", async () => {
    const server = await startServer({
      turns: [
        { fault: { status: 400, message: "messages.0: tool_result block without a tool_use" } },
        { fault: { status: 502, body: "<html>Bad Gateway</html>" } },
      ],
    });

    const invalid = await apiCallError(streamTurn(provider.model(server)));
    const gateway = await apiCallError(streamTurn(provider.model(server)));

    expect(invalid.message).toBe("messages.0: tool_result block without a tool_use");
    expect(invalid.responseBody).not.toContain("context_length_exceeded");
    expect(gateway.statusCode).toBe(502);
    expect(gateway.isRetryable).toBe(true);
    expect(gateway.responseBody).toBe("<html>Bad Gateway</html>");
  });

  it("answers 500 naming the request when no turn is left", async () => {
    const server = await startServer({ turns: [{ content: [{ type: "text", text: "only one" }] }] });
    await streamTurn(provider.model(server));

    const error = await apiCallError(streamTurn(provider.model(server)));

    expect(error.statusCode).toBe(500);
    expect(error.message).toContain("scripted model server: no turn left for request #2");
    expect(server.requests).toHaveLength(2);
  });

  it("cuts the stream after cutAfterChars: partial text, an error, no finish", async () => {
    const server = await startServer({
      turns: [{ content: [{ type: "text", text: "The quick brown fox jumps over the lazy dog." }], chunkSize: 6, cutAfterChars: 15 }],
    });

    const result = await streamTurn(provider.model(server));

    expect(result.textDeltas.join("")).toBe("The quick brown");
    expect(result.finish).toBeUndefined();
    expect(result.failure).toBeDefined();
  });

  it("cuts before the finish even when cutAfterChars exceeds the content", async () => {
    const server = await startServer({ turns: [{ content: [{ type: "text", text: "All of it." }], cutAfterChars: 1_000 }] });

    const result = await streamTurn(provider.model(server));

    expect(result.textDeltas.join("")).toBe("All of it.");
    expect(result.finish).toBeUndefined();
    expect(result.failure).toBeDefined();
  });

  it("cuts a stream of tool-call JSON without delivering the tool call", async () => {
    const server = await startServer({
      turns: [{ content: [{ type: "tool_use", name: "read_file", input: { path: "a/long/path/to/file.ts" } }], cutAfterChars: 10 }],
    });

    const result = await streamTurn(provider.model(server));

    expect(result.toolCalls).toEqual([]);
    expect(result.finish).toBeUndefined();
    expect(result.failure).toBeDefined();
  });

  it("ends the stream cleanly with cutMode end: partial text, no finish reason, no socket error", async () => {
    const server = await startServer({
      turns: [{ content: [{ type: "text", text: "The quick brown fox jumps over the lazy dog." }], chunkSize: 6, cutAfterChars: 15, cutMode: "end" }],
    });

    const result = await streamTurn(provider.model(server));

    expect(result.textDeltas.join("")).toBe("The quick brown");
    // The SDKs report this their own way (a finish with no raw reason, or an error part), never a real stop reason.
    expect(result.finish?.finishReason.raw).toBeUndefined();
    expect(result.parts.some((part) => part.type === "finish" && part.finishReason.unified === "stop")).toBe(false);
  });

  it("goes silent mid-stream with cutMode stall until the client gives up", async () => {
    const server = await startServer({
      turns: [
        { content: [{ type: "text", text: "The quick brown fox jumps over the lazy dog." }], chunkSize: 6, cutAfterChars: 15, cutMode: "stall" },
        { content: [{ type: "text", text: "next" }] },
      ],
    });
    const controller = new AbortController();
    const { stream } = await provider.model(server).doStream({ ...callOptions, abortSignal: controller.signal });
    const reader = stream.getReader();
    let text = "";
    while (text !== "The quick brown") {
      const { value } = await reader.read();
      if (value?.type === "text-delta") text += value.delta;
    }

    const silence = await Promise.race([reader.read().then(() => "data"), new Promise((resolve) => setTimeout(() => resolve("silent"), 300))]);
    controller.abort();

    expect(silence).toBe("silent");
    expect((await streamTurn(provider.model(server))).textDeltas.join("")).toBe("next");
  });

  it("answers a 200 with an empty body or an HTML page when scripted", async () => {
    const server = await startServer({
      turns: [{ fault: { status: 200, body: "" } }, { fault: { status: 200, body: "<html><body>Sign in to Wi-Fi</body></html>", contentType: "text/html" } }],
    });
    const url = `${server.url}${provider.wire === "anthropic" ? "/v1/messages" : "/v1/chat/completions"}`;
    const post = () => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ stream: true }) });

    const empty = await post();
    const html = await post();

    expect([empty.status, await empty.text()]).toEqual([200, ""]);
    expect([html.status, html.headers.get("content-type"), await html.text()]).toEqual([200, "text/html", "<html><body>Sign in to Wi-Fi</body></html>"]);
  });
});

describe("thinking", () => {
  it("arrives as Anthropic thinking deltas with a signature", async () => {
    const server = await startServer({
      turns: [{ content: [{ type: "thinking", text: "The user wants the README." }, { type: "text", text: "Reading it." }] }],
    });

    const result = await streamTurn(providers[0]!.model(server));

    expect(result.reasoningText).toBe("The user wants the README.");
    const signed = result.parts.find((part) => part.type === "reasoning-delta" && part.providerMetadata?.anthropic?.signature);
    expect(signed).toBeDefined();
    expect(result.textDeltas.join("")).toBe("Reading it.");
  });

  it("arrives as reasoning_content deltas on the OpenAI wire", async () => {
    const server = await startServer({
      turns: [{ content: [{ type: "thinking", text: "Think first, then answer." }, { type: "text", text: "Answer." }], chunkSize: 5 }],
    });

    const result = await streamTurn(providers[2]!.model(server));

    expect(result.reasoningText).toBe("Think first, then answer.");
    expect(result.textDeltas.join("")).toBe("Answer.");
  });
});

describe("Anthropic faults", () => {
  it.each([
    { status: 529, type: "overloaded_error", retryable: true },
    { status: 401, type: "authentication_error", retryable: false },
    { status: 500, type: "api_error", retryable: true },
  ])("answers $status with a $type body and a request-id", async ({ status, type, retryable }) => {
    const server = await startServer({ turns: [{ fault: { status } }] });

    const error = await apiCallError(streamTurn(providers[0]!.model(server)));

    expect(error.statusCode).toBe(status);
    expect(error.isRetryable).toBe(retryable);
    expect(JSON.parse(error.responseBody ?? "").error.type).toBe(type);
    expect(error.responseHeaders?.["request-id"]).toBe("req_scripted_1");
  });
});

describe("wire format", () => {
  it("sends Anthropic events each with an event line and a data line, with pings", async () => {
    const server = await startServer({
      turns: [
        {
          content: [
            { type: "thinking", text: "hmm" },
            { type: "text", text: "a".repeat(200) },
            { type: "tool_use", name: "read_file", input: { path: "x" } },
          ],
          usage: { input_tokens: 12, cache_read_input_tokens: 3 },
        },
      ],
    });

    const response = await postJson(`${server.url}/v1/messages`, { model: "claude-wire", stream: true, messages: [] });
    const events = parseSse(await response.text());

    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    for (const event of events) expect(event.data.type).toBe(event.event);
    const names = events.map((event) => event.event).filter((name) => name !== "ping");
    expect(names.slice(0, 2)).toEqual(["message_start", "content_block_start"]);
    expect(names.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(events.filter((event) => event.event === "ping").length).toBeGreaterThan(1);
    const start = events[0]?.data;
    expect(start.message).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      model: "claude-wire",
      usage: { input_tokens: 12, cache_read_input_tokens: 3, cache_creation_input_tokens: 0, output_tokens: 1 },
    });
    const deltaTypes = new Set(events.flatMap((event) => (event.event === "content_block_delta" ? [event.data.delta.type] : [])));
    expect(deltaTypes).toEqual(new Set(["thinking_delta", "signature_delta", "text_delta", "input_json_delta"]));
    expect(events.at(-2)?.data.delta.stop_reason).toBe("tool_use");
  });

  it("sends OpenAI chunks ending in [DONE], with a usage chunk only when include_usage is set", async () => {
    const server = await startServer({
      turns: [{ content: [{ type: "text", text: "hi" }] }, { content: [{ type: "text", text: "hi" }] }],
    });
    const url = `${server.url}/v1/chat/completions`;

    const withUsage = parseSse(await (await postJson(url, { model: "m", stream: true, stream_options: { include_usage: true } })).text());
    const withoutUsage = parseSse(await (await postJson(url, { model: "m", stream: true })).text());

    expect(withUsage.at(-1)?.raw).toBe("[DONE]");
    expect(withUsage.at(-2)?.data).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
    expect(withUsage.slice(0, -1).every((chunk) => chunk.data.object === "chat.completion.chunk")).toBe(true);
    expect(withoutUsage.at(-1)?.raw).toBe("[DONE]");
    expect(withoutUsage.some((chunk) => chunk.data?.usage)).toBe(false);
    expect(withoutUsage.at(-2)?.data.choices[0].finish_reason).toBe("stop");
  });

  it("writes each event separately, so clients see it before the stream ends", async () => {
    const server = await startServer({ turns: [{ content: [{ type: "text", text: "abcdef" }], chunkSize: 1, chunkDelayMs: 40 }] });
    const { stream } = await providers[0]!.model(server).doStream(callOptions);
    const reader = stream.getReader();
    const arrivals: Array<{ type: string; at: number }> = [];
    const startedAt = Date.now();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      arrivals.push({ type: next.value.type, at: Date.now() - startedAt });
    }

    const firstDelta = arrivals.find((arrival) => arrival.type === "text-delta");
    const finish = arrivals.find((arrival) => arrival.type === "finish");
    expect(finish!.at - firstDelta!.at).toBeGreaterThanOrEqual(5 * 40 - 20);
  });

  it("answers non-streaming requests with the equivalent JSON response", async () => {
    const turn: ScriptedTurn = {
      content: [
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "t1", name: "read_file", input: { path: "a.ts" } },
      ],
      usage: { input_tokens: 9, output_tokens: 4 },
    };
    const server = await startServer({ turns: [turn, turn] });

    for (const provider of [providers[0]!, providers[1]!]) {
      const result = await provider.model(server).doGenerate(callOptions);

      expect(result.content).toEqual([
        expect.objectContaining({ type: "text", text: "Reading." }),
        expect.objectContaining({ type: "tool-call", toolCallId: "t1", toolName: "read_file", input: '{"path":"a.ts"}' }),
      ]);
      expect(result.finishReason.unified).toBe("tool-calls");
      expect(result.usage.outputTokens.total).toBe(4);
    }
    expect(server.requests.map((request) => request.body.stream ?? false)).toEqual([false, false]);
  });

  it("answers an unknown path with a 404 that names the real endpoints", async () => {
    const server = await startServer();

    const response = await postJson(`${server.url}/messages`, {});

    expect(response.status).toBe(404);
    expect(await response.text()).toContain("POST /v1/messages");
    expect(server.requests).toHaveLength(0);
  });
});

describe("queue and responder", () => {
  it("consumes enqueued turns in order, then falls back to the responder", async () => {
    const seen: Array<{ index: number; model: unknown }> = [];
    const server = await startServer({
      turns: [{ content: [{ type: "text", text: "first" }] }],
      responder: (request, index) => {
        seen.push({ index, model: request.body.model });
        return { content: [{ type: "text", text: `responder #${index}` }] };
      },
    });
    server.enqueue({ fault: { status: 503 } }, { content: [{ type: "text", text: "third" }] });
    expect(server.remaining()).toBe(3);
    const model = providers[1]!.model(server);

    const first = await streamTurn(model);
    const second = await apiCallError(streamTurn(model));
    const third = await streamTurn(model);
    const fourth = await streamTurn(model);

    expect(first.textDeltas.join("")).toBe("first");
    expect(second.statusCode).toBe(503);
    expect(third.textDeltas.join("")).toBe("third");
    expect(fourth.textDeltas.join("")).toBe("responder #3");
    expect(seen).toEqual([{ index: 3, model: "gpt-4o" }]);
    expect(server.requests).toHaveLength(4);
    expect(server.remaining()).toBe(0);
  });
});

describe("delays and shutdown", () => {
  it("lets a client abort a delayed request and go on to the next turn", async () => {
    const server = await startServer({
      turns: [{ delayMs: 60_000, content: [{ type: "text", text: "too late" }] }, { content: [{ type: "text", text: "on time" }] }],
    });
    const model = providers[0]!.model(server);

    const startedAt = Date.now();
    const aborted = streamTurn(model, { abortSignal: AbortSignal.timeout(100) });
    await expect(aborted).rejects.toThrow();
    const next = await streamTurn(model);

    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(next.textDeltas.join("")).toBe("on time");
  });

  it("closes promptly with a request hanging and keep-alive sockets open", async () => {
    const server = await startServer({ turns: [{ content: [{ type: "text", text: "kept alive" }] }, { delayMs: 60_000 }] });
    const model = providers[1]!.model(server);
    await streamTurn(model);
    const hanging = streamTurn(model).catch((error: unknown) => error);
    while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));

    const startedAt = Date.now();
    await server.close();

    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(await hanging).toBeInstanceOf(Error);
  });
});

describe("CLI", () => {
  it("prints its url as one JSON line and serves the script until killed", async () => {
    const directory = await mkdtemp(join(tmpdir(), "scripted-model-cli-"));
    const scriptPath = join(directory, "turns.json");
    await writeFile(scriptPath, JSON.stringify([{ content: [{ type: "text", text: "from the script" }] }]));
    const cli = join(import.meta.dirname, "scripted-model-server-cli.ts");
    const tsx = join(process.cwd(), "node_modules/.bin/tsx");
    const child = spawn(tsx, [cli, "--script", scriptPath], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once("line", resolve);
        child.once("exit", (code) => reject(new Error(`CLI exited early with code ${code}`)));
      });
      const { url } = JSON.parse(firstLine) as { url: string };
      const response = await postJson(`${url}/v1/chat/completions`, { model: "m" });
      const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };

      expect(body.choices[0]?.message.content).toBe("from the script");
    } finally {
      child.kill("SIGTERM");
      await rm(directory, { recursive: true, force: true });
    }
  });
});

function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** `data` is parsed JSON read ad hoc by the assertions; typing every wire shape here would hide nothing. */
type SseEvent = { event: string | undefined; raw: string; data: any };

function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice("event: ".length);
      const raw = lines.find((line) => line.startsWith("data: "))?.slice("data: ".length) ?? "";
      return { event, raw, data: raw === "[DONE]" ? undefined : JSON.parse(raw) };
    });
}
