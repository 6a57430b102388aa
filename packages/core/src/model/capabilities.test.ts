import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../../../../test/support/scripted-model-server.js";
import { factsFromSettings } from "./capabilities.js";
import { createModel } from "./providers.js";

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The body of the one request a model made for "hi". */
async function requestOf(info: Parameters<typeof createModel>[0]["info"], reasoning?: { effort: "low" | "medium" | "high" }): Promise<Record<string, unknown>> {
  server = await startScriptedModelServer({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
  const model = createModel({ provider: "openai", model: "gpt-5", apiKey: "k", baseUrl: `${server.url}/v1`, ...(info ? { info } : {}), ...(reasoning ? { reasoning } : {}) });
  for await (const _ of model.stream({ system: "s", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }, new AbortController().signal)) void _;
  return server.requests[0]!.body as Record<string, unknown>;
}

describe("reasoning from settings", () => {
  it("false keeps --effort from a model that does not reason; an effort is the model's own default; the person's effort wins", async () => {
    expect((await requestOf(factsFromSettings({ reasoning: false }), { effort: "high" })).reasoning_effort).toBeUndefined();
    expect((await requestOf(factsFromSettings({ reasoning: "low" }))).reasoning_effort).toBe("low");
    expect((await requestOf(factsFromSettings({ reasoning: "low" }), { effort: "high" })).reasoning_effort).toBe("high");
    expect((await requestOf(undefined)).reasoning_effort).toBeUndefined();
  });
});

describe("a settings entry in ModelInfo's words", () => {
  it("maps images, maxOutput (or its older name) and the rest, and leaves out what it does not say", () => {
    expect(factsFromSettings({ images: true, maxOutput: 4096, maxOutputTokens: 2048, nativeTools: false })).toEqual({ supportsImages: true, maxOutputTokens: 4096, nativeTools: false });
    expect(factsFromSettings({ maxOutputTokens: 2048 })).toEqual({ maxOutputTokens: 2048 });
    expect(factsFromSettings(undefined)).toBeUndefined();
  });
});
