import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import { ModelError } from "./errors.js";
import { createModel } from "./providers.js";
import type { ModelEvent, ProviderId } from "./types.js";

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(...turns: ScriptedTurn[]): Promise<ScriptedModelServer> {
  server = await startScriptedModelServer({ turns });
  return server;
}

type Outcome = { events: ModelEvent[]; error: ModelError | undefined };

async function collect(provider: ProviderId, url: string, options: { requestTimeoutSeconds?: number; signal?: AbortSignal } = {}): Promise<Outcome> {
  const model = createModel({
    provider,
    model: "scripted",
    apiKey: "k",
    baseUrl: provider === "anthropic" ? url : `${url}/v1`,
    ...(options.requestTimeoutSeconds === undefined ? {} : { requestTimeoutSeconds: options.requestTimeoutSeconds }),
  });
  const events: ModelEvent[] = [];
  try {
    for await (const event of model.stream({ system: "s", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }, options.signal ?? new AbortController().signal)) {
      events.push(event);
    }
    return { events, error: undefined };
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    return { events, error };
  }
}

const text = "The quick brown fox jumps over the lazy dog.";
const readCall = { type: "tool_use" as const, name: "read_file", input: { path: "README.md" } };
const writeCall = { type: "tool_use" as const, name: "write_to_file", input: { path: "a.txt", content: "a long enough body to be cut in the middle" } };

describe.each(["openai-compatible", "openai", "anthropic"] as const)("a stream that closes cleanly without a finish reason, on %s", (provider) => {
  it("is a cut stream, which the loop retries", async () => {
    const s = await serve({ content: [{ type: "text", text }], chunkSize: 6, cutAfterChars: 15, cutMode: "end" });
    const { events, error } = await collect(provider, s.url);
    expect(error?.kind).toBe("stream_cut");
    expect(error?.retryable).toBe(true);
    expect(error?.message).toContain(s.url);
    expect(events.some((e) => e.type === "finish")).toBe(false);
  });

  it("hands over complete tool calls and never a half-written one", async () => {
    const json = JSON.stringify(readCall.input) + JSON.stringify(writeCall.input);
    const s = await serve({ content: [readCall, writeCall], chunkSize: 5, cutAfterChars: json.length - 10, cutMode: "end" });
    const { events, error } = await collect(provider, s.url);
    expect(error?.kind).toBe("stream_cut");
    const calls = events.filter((e) => e.type === "tool-call");
    expect(calls.map((c) => [c.name, JSON.parse(c.argsText)])).toEqual([["read_file", { path: "README.md" }]]);
  });
});

describe("a provider that stalls", () => {
  it("times out before the first byte with a message naming the URL and the flag", async () => {
    const s = await serve({ delayMs: 60_000, content: [{ type: "text", text }] });
    const { error } = await collect("openai-compatible", s.url, { requestTimeoutSeconds: 0.3 });
    expect(error?.kind).toBe("timeout");
    expect(error?.retryable).toBe(true);
    expect(error?.message).toBe(`No response from ${s.url}/v1 for 0.3 s; check the provider or raise --request-timeout.`);
  });

  it.each(["openai-compatible", "anthropic"] as const)("times out mid-stream on %s, after the text so far", async (provider) => {
    const s = await serve({ content: [{ type: "text", text }], chunkSize: 6, cutAfterChars: 15, cutMode: "stall" });
    const { events, error } = await collect(provider, s.url, { requestTimeoutSeconds: 0.3 });
    expect(events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("")).toBe("The quick brown");
    expect(error?.kind).toBe("timeout");
  });

  it("lets a slow but steady stream finish: the limit is between chunks, not for the whole reply", async () => {
    const s = await serve({ content: [{ type: "text", text }], chunkSize: 4, chunkDelayMs: 60 });
    const { events, error } = await collect("openai-compatible", s.url, { requestTimeoutSeconds: 0.4 });
    expect(error).toBeUndefined();
    expect(events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("")).toBe(text);
  });

  it("still reports the person's own abort as aborted", async () => {
    const s = await serve({ delayMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { error } = await collect("openai-compatible", s.url, { requestTimeoutSeconds: 30, signal: controller.signal });
    expect(error?.kind).toBe("aborted");
  });
});

describe("a server that answered earlier in the run", () => {
  it("is retried when it then refuses the connection (restarting), where a first refusal is not", async () => {
    const s = await serve({ content: [{ type: "text", text }] });
    const model = createModel({ provider: "ollama", model: "scripted", baseUrl: `${s.url}/v1` });
    const request = { system: "s", messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }] };
    const attempt = async () => {
      try {
        for await (const _ of model.stream(request, new AbortController().signal)) void _;
        return undefined;
      } catch (error) {
        return error as ModelError;
      }
    };
    expect(await attempt()).toBeUndefined();
    await s.close();
    server = undefined;
    const error = await attempt();
    expect(error?.kind).toBe("network");
    expect(error?.retryable).toBe(true);

    // The same refusal from a model that never reached the server is the settings: no retry.
    const fresh = createModel({ provider: "ollama", model: "scripted", baseUrl: `${s.url}/v1` });
    let first: ModelError | undefined;
    try {
      for await (const _ of fresh.stream(request, new AbortController().signal)) void _;
    } catch (caught) {
      first = caught as ModelError;
    }
    expect(first?.kind).toBe("unreachable");
  });
});

describe("a plain server that closes the connection before answering", () => {
  it("is a passing fault, retried: it does not speak TLS, so http:// is not the mistake", async () => {
    let connections = 0;
    const closer = createServer((socket) => {
      connections++;
      socket.on("data", () => socket.destroy());
    });
    await new Promise<void>((resolve) => closer.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = closer.address() as { port: number };
      const { error } = await collect("openai-compatible", `http://127.0.0.1:${port}`);
      expect(error?.kind).toBe("network");
      expect(error?.retryable).toBe(true);
      // The request, and the TLS handshake that found no TLS there.
      expect(connections).toBe(2);
    } finally {
      await new Promise<void>((resolve) => closer.close(() => resolve()));
    }
  });
});

describe("a 200 that is not an API response", () => {
  it("refuses an HTML page at once, naming the base URL", async () => {
    const s = await serve({ fault: { status: 200, body: "<!doctype html><html><body>Sign in to the Wi-Fi</body></html>", contentType: "text/html; charset=utf-8" } });
    const { error } = await collect("openai-compatible", s.url);
    expect(error?.kind).toBe("bad_response");
    expect(error?.retryable).toBe(false);
    expect(error?.message).toBe(`The server at ${s.url}/v1 answered with an HTML page, not an API response; check --base-url.`);
  });

  it.each(["openai-compatible", "openai", "anthropic"] as const)("reports an empty body on %s", async (provider) => {
    const s = await serve({ fault: { status: 200, body: "" } });
    const { error } = await collect(provider, s.url);
    expect(error?.message).toMatch(/answered with an empty response, not an API reply; check --base-url/);
  });
});

describe("createModel", () => {
  it("refuses a base URL with credentials without repeating them", () => {
    const attempt = () => createModel({ provider: "openai-compatible", model: "m", baseUrl: "https://alice:s3cret-pw@llm.example.com/v1" });
    expect(attempt).toThrow(/has a user name or password in it/);
    expect(attempt).toThrow(/https:\/\/\*\*\*@llm\.example\.com\/v1/);
    expect(() => attempt()).not.toThrow(/alice|s3cret/);
  });

  it("refuses a key that cannot be sent in an HTTP header, naming where it came from and not the key", () => {
    const pasted = () => createModel({ provider: "openai", model: "m", apiKey: "sk-abc…def", baseUrl: "http://localhost:8000/v1" });
    expect(pasted).toThrow("The API key for openai (from OPENAI_API_KEY or CAIRN_API_KEY) has the character U+2026 at position 7, which cannot be sent in an HTTP header; copy the key again.");
    const broken = () => createModel({ provider: "anthropic", model: "m", apiKey: "sk-abc\ndef" });
    expect(broken).toThrow(/has a line break at position 7/);
    expect(broken).not.toThrow(/sk-abc|def/);
    // Positive control: a plain key is accepted.
    expect(() => createModel({ provider: "anthropic", model: "m", apiKey: "sk-ant-abc_DEF-123" })).not.toThrow();
  });

  it("names the base URL without the spaces around it", async () => {
    const { error } = await collect("openai-compatible", "  http://127.0.0.1:1");
    expect(error?.message).toContain("of http://127.0.0.1:1/v1:");
  });

  it("refuses a base URL that is not a URL", () => {
    expect(() => createModel({ provider: "ollama", model: "m", baseUrl: "localhost:11434" })).toThrow(/must start with http:\/\/ or https:\/\//);
    expect(() => createModel({ provider: "ollama", model: "m", baseUrl: "not a url" })).toThrow(/is not a URL/);
  });
});
