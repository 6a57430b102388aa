import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunArgs } from "@cairn/host/run-args";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startModelEndpointServer } from "../../../test/support/model-endpoint-server.js";
import { checkModel, choiceOverrides, modelCatalog } from "./model-choices.js";

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), "cairn-model-choices-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// cairn web started against a proxy for Anthropic, with keys for Anthropic and OpenAI.
const args = () => ({ cwd: dir, provider: "anthropic", baseUrl: "http://proxy.internal:8080" }) as unknown as RunArgs;
const env = () => ({ CAIRN_HOME: path.join(dir, "home"), ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "sk-openai", PATH: process.env.PATH });

describe("model choices", () => {
  it("another provider goes to its own API: its key never travels to the configured base URL", () => {
    const other = choiceOverrides({ provider: "openai", model: "gpt-5" }, args(), env());
    expect(other).toEqual({ ok: true, overrides: { provider: "openai", model: "gpt-5", baseUrl: "https://api.openai.com/v1" } });
    const deepseek = choiceOverrides({ provider: "deepseek", model: "deepseek-chat" }, args(), env());
    expect(deepseek.ok && deepseek.overrides.baseUrl).toBe("https://api.deepseek.com/v1");
    // Positive control: the configured provider keeps its base URL (no override, so the flag's stands).
    expect(choiceOverrides({ provider: "anthropic", model: "claude-haiku-4-5" }, args(), env())).toEqual({ ok: true, overrides: { provider: "anthropic", model: "claude-haiku-4-5" } });
  });

  it("a provider with no API of its own is refused unless it is the configured one", async () => {
    expect(choiceOverrides({ provider: "openai-compatible", model: "m" }, args(), env())).toEqual({
      ok: false,
      message: "openai-compatible needs a base URL of its own: start cairn web with --provider openai-compatible --base-url <url>.",
    });
    expect((await modelCatalog(args(), env())).providers.map((p) => p.id)).not.toContain("openai-compatible");
  });

  it("offers the models an Ollama endpoint has pulled, after the configured one", async () => {
    const endpoint = await startModelEndpointServer({ ollamaTags: "ollama-tags.json" });
    try {
      const ollama = { cwd: dir, provider: "ollama", baseUrl: `${endpoint.url}/v1`, model: "qwen2.5vl:7b" } as unknown as RunArgs;
      const catalog = await modelCatalog(ollama, env());
      expect(catalog.providers[0]?.id).toBe("ollama");
      expect(catalog.providers[0]!.models.slice(0, 2)).toEqual(["qwen2.5vl:7b", "qwen2.5-coder:14b"]);
      expect(endpoint.asked).toEqual(["GET /api/tags"]);
    } finally {
      await endpoint.close();
    }
  });

  it("checks a choice as the session would: a missing key names its variable; images by the catalog", async () => {
    expect(await checkModel({ provider: "deepseek", model: "deepseek-chat" }, args(), env())).toEqual({ ok: false, message: "No API key for deepseek: set DEEPSEEK_API_KEY or CAIRN_API_KEY." });
    expect(await checkModel({ provider: "openai", model: "gpt-5" }, args(), env())).toEqual({ ok: true, provider: "openai", model: "gpt-5", supports_images: true });
    expect(await checkModel(undefined, args(), env())).toEqual({ ok: true, provider: "anthropic", model: "claude-sonnet-4-5", supports_images: true });
  });
});
