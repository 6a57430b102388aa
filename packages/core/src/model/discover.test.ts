import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startModelEndpointServer, type ModelEndpointServer } from "../../../../test/support/model-endpoint-server.js";
import { layeredModelInfo } from "./capabilities.js";
import { discoveredFacts, discoverModels, discoveryTtlMs, listedModels } from "./discover.js";

let server: ModelEndpointServer | undefined;
const homes: string[] = [];
const home = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "cairn-discover-"));
  homes.push(dir);
  return dir;
};
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("Ollama (/api/show)", () => {
  it("says a vision model takes images, and its context length; a model with tools gets native calls and its served num_ctx", async () => {
    server = await startModelEndpointServer({ ollamaShow: { "qwen2.5vl:7b": "ollama-show-qwen2.5vl.json", "llama3.1": "ollama-show-llama3.1.json" } });
    const target = { home: home(), provider: "ollama" as const, baseUrl: `${server.url}/v1` };
    expect(await discoverModels(target, ["qwen2.5vl:7b", "llama3.1"])).toEqual({ learned: true });
    expect(discoveredFacts(target, "qwen2.5vl:7b")).toEqual({ contextWindow: 128_000, supportsImages: true, nativeTools: false, reasoning: false });
    expect(discoveredFacts(target, "llama3.1")).toEqual({ contextWindow: 32_768, supportsImages: false, nativeTools: true, reasoning: false });
    expect(server.asked).toEqual(["POST /api/show qwen2.5vl:7b", "POST /api/show llama3.1"]);
  });

  it("asks again only after an hour, and a model Ollama does not have is nothing learned, not a failure", async () => {
    server = await startModelEndpointServer({ ollamaShow: { "qwen2.5vl:7b": "ollama-show-qwen2.5vl.json" } });
    const target = { home: home(), provider: "ollama" as const, baseUrl: `${server.url}/v1` };
    const now = Date.now();
    await discoverModels(target, ["qwen2.5vl:7b", "missing"], { now });
    expect(await discoverModels(target, ["qwen2.5vl:7b", "missing"], { now: now + 60_000 })).toEqual({ learned: false });
    expect(server.asked).toHaveLength(2);
    expect(discoveredFacts(target, "missing")).toBeUndefined();
    await discoverModels(target, ["qwen2.5vl:7b"], { now: now + discoveryTtlMs + 1 });
    expect(server.asked).toEqual(["POST /api/show qwen2.5vl:7b", "POST /api/show missing", "POST /api/show qwen2.5vl:7b"]);
    expect(readdirSync(path.join(target.home, "cache", "models"))).toEqual([expect.stringMatching(/^ollama-[0-9a-f]{16}\.json$/)]);
  });

  it("an endpoint that hangs costs the run its short wait and one notice, then is not asked again for a while", async () => {
    server = await startModelEndpointServer({ ollamaShow: { m: "ollama-show-qwen2.5vl.json" }, hang: true });
    const target = { home: home(), provider: "ollama" as const, baseUrl: `${server.url}/v1` };
    const first = await discoverModels(target, ["m"], { timeoutMs: 300 });
    expect(first.learned).toBe(false);
    expect(first.notice).toBe(`ollama at ${server.url}/v1 did not say what m can do (no answer within 0.3 s); using settings.json's "models" and built-in guesses.`);
    expect(await discoverModels(target, ["m"], { timeoutMs: 300 })).toEqual({ learned: false });
    expect(server.asked).toEqual(["POST /api/show m"]);
  });

  it("a server that does not speak Ollama's API, or is not there, is passed over in silence", async () => {
    server = await startModelEndpointServer({});
    expect(await discoverModels({ home: home(), provider: "ollama", baseUrl: `${server.url}/v1` }, ["m"])).toEqual({ learned: false });
    const url = server.url;
    await server.close();
    server = undefined;
    expect(await discoverModels({ home: home(), provider: "ollama", baseUrl: `${url}/v1` }, ["m"])).toEqual({ learned: false });
  });
});

describe("LM Studio (/api/v0/models)", () => {
  it("says a vlm takes images and an llm does not, with the loaded context length where loaded and tool use where listed", async () => {
    server = await startModelEndpointServer({ lmstudioModels: "lmstudio-models.json" });
    const target = { home: home(), provider: "lmstudio" as const, baseUrl: `${server.url}/v1` };
    expect(await discoverModels(target, ["qwen2-vl-7b-instruct"])).toEqual({ learned: true });
    expect(discoveredFacts(target, "qwen2-vl-7b-instruct")).toEqual({ contextWindow: 32_768, supportsImages: true });
    expect(discoveredFacts(target, "meta-llama-3.1-8b-instruct")).toEqual({ contextWindow: 16_384, supportsImages: false, nativeTools: true });
    expect(server.asked).toEqual(["GET /api/v0/models"]);
  });
});

describe("the models an endpoint has", () => {
  it("Ollama's pulled models (/api/tags), asked once an hour and only when listing is asked for; a name no model has is left out", async () => {
    server = await startModelEndpointServer({ ollamaTags: "ollama-tags.json", ollamaShow: { "qwen2.5vl:7b": "ollama-show-qwen2.5vl.json" } });
    const target = { home: home(), provider: "ollama" as const, baseUrl: `${server.url}/v1` };
    const now = Date.now();
    await discoverModels(target, ["qwen2.5vl:7b"], { now });
    expect(listedModels(target)).toEqual([]);
    expect(await discoverModels(target, [], { list: true, now })).toEqual({ learned: false });
    // The third entry's name is a terminal escape, not a model's name.
    expect(listedModels(target)).toEqual(["qwen2.5-coder:14b", "qwen2.5vl:7b"]);
    await discoverModels(target, [], { list: true, now: now + 60_000 });
    expect(server.asked).toEqual(["POST /api/show qwen2.5vl:7b", "GET /api/tags"]);
    await discoverModels(target, [], { list: true, now: now + discoveryTtlMs + 1 });
    expect(server.asked.at(-1)).toBe("GET /api/tags");
    expect(server.asked).toHaveLength(3);
  });

  it("LM Studio's downloaded chat models, not its embedding models", async () => {
    server = await startModelEndpointServer({ lmstudioModels: "lmstudio-models.json" });
    const target = { home: home(), provider: "lmstudio" as const, baseUrl: `${server.url}/v1` };
    await discoverModels(target, [], { list: true });
    expect(listedModels(target)).toEqual(["qwen2-vl-7b-instruct", "meta-llama-3.1-8b-instruct"]);
  });

  it("an endpoint that is not there lists nothing and fails nothing; one that was keeps its last list", async () => {
    server = await startModelEndpointServer({ ollamaTags: "ollama-tags.json" });
    const target = { home: home(), provider: "ollama" as const, baseUrl: `${server.url}/v1` };
    const now = Date.now();
    await discoverModels(target, [], { list: true, now });
    await server.close();
    server = undefined;
    expect(await discoverModels(target, [], { list: true, now: now + discoveryTtlMs + 1 })).toEqual({ learned: false });
    expect(listedModels(target)).toEqual(["qwen2.5-coder:14b", "qwen2.5vl:7b"]);
    const gone = { home: home(), provider: "ollama" as const, baseUrl: target.baseUrl };
    expect(await discoverModels(gone, [], { list: true })).toEqual({ learned: false });
    expect(listedModels(gone)).toEqual([]);
  });
});

describe("OpenRouter (/api/v1/models)", () => {
  it("gives context length, max output, image input, tools, reasoning and prices per million tokens", async () => {
    server = await startModelEndpointServer({ openrouterModels: "openrouter-models.json" });
    const target = { home: home(), provider: "openrouter" as const, baseUrl: `${server.url}/api/v1` };
    await discoverModels(target, ["anthropic/claude-sonnet-4.5"]);
    expect(discoveredFacts(target, "anthropic/claude-sonnet-4.5")).toEqual({
      contextWindow: 1_000_000,
      maxOutputTokens: 64_000,
      supportsImages: true,
      nativeTools: true,
      reasoning: true,
      pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    });
    expect(discoveredFacts(target, "qwen/qwen2.5-vl-72b-instruct")).toEqual({
      contextWindow: 32_000,
      supportsImages: true,
      nativeTools: false,
      reasoning: false,
      pricing: { input: 0.25, output: 0.75 },
    });
    // A router's "-1" is an unknown price, not a negative one.
    expect(discoveredFacts(target, "openrouter/auto")?.pricing).toBeUndefined();
  });
});

describe("layers", () => {
  it("settings beat what the endpoint said, which beats the built-in list, which beats the guess", () => {
    const unknown = layeredModelInfo("qwen2.5vl:7b", "ollama", {});
    expect(unknown.info.supportsImages).toBe(false);
    expect(unknown.sources.supportsImages).toBe("default");
    const discovered = layeredModelInfo("qwen2.5vl:7b", "ollama", { discovered: { supportsImages: true, contextWindow: 128_000 }, settings: { contextWindow: 32_768 } });
    expect(discovered.info).toMatchObject({ supportsImages: true, contextWindow: 32_768, maxOutputTokens: 8_192 });
    expect(discovered.sources).toMatchObject({ supportsImages: "discovered", contextWindow: "settings", maxOutputTokens: "default" });
    const known = layeredModelInfo("claude-sonnet-4-5", "anthropic", { settings: { supportsImages: false } });
    expect(known.info).toMatchObject({ supportsImages: false, contextWindow: 200_000 });
    expect(known.sources).toMatchObject({ supportsImages: "settings", contextWindow: "built-in" });
  });
});
