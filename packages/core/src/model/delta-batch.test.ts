import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import { DeltaBatch, readyThisTurn } from "./delta-batch.js";
import { createModel } from "./providers.js";
import type { ModelEvent, ProviderId } from "./types.js";

describe("DeltaBatch", () => {
  it("joins a delta to the held one it continues, and hands back the held one it cannot join", () => {
    const batch = new DeltaBatch();
    expect(batch.add({ type: "text-delta", text: "Hel" })).toBeUndefined();
    expect(batch.add({ type: "text-delta", text: "lo" })).toBeUndefined();
    expect(batch.add({ type: "tool-call-delta", id: "a", argsText: '{"p' })).toEqual({ type: "text-delta", text: "Hello" });
    expect(batch.add({ type: "tool-call-delta", id: "a", argsText: 'ath":1}' })).toBeUndefined();
    expect(batch.add({ type: "tool-call-delta", id: "b", argsText: "{" })).toEqual({ type: "tool-call-delta", id: "a", argsText: '{"path":1}' });
    expect(batch.take()).toEqual({ type: "tool-call-delta", id: "b", argsText: "{" });
    expect(batch.holding).toBe(false);
    expect(batch.take()).toBeUndefined();
  });

  it("joins thinking, but passes a signature on as it came: it closes its block", () => {
    const batch = new DeltaBatch();
    batch.add({ type: "reasoning-delta", text: "think" });
    batch.add({ type: "reasoning-delta", text: "ing" });
    expect(batch.add({ type: "reasoning-delta", text: "", signature: "sig" })).toEqual({ type: "reasoning-delta", text: "thinking" });
    expect(batch.add({ type: "reasoning-delta", text: "next" })).toEqual({ type: "reasoning-delta", text: "", signature: "sig" });
    expect(batch.add({ type: "text-delta", text: "answer" })).toEqual({ type: "reasoning-delta", text: "next" });
  });
});

describe("readyThisTurn", () => {
  it("is true for what has arrived, false for what waits on I/O or failed", async () => {
    expect(await readyThisTurn(Promise.resolve(1))).toBe(true);
    let settle = (): void => undefined;
    const later = new Promise<void>((resolve) => (settle = resolve));
    expect(await readyThisTurn(later)).toBe(false);
    settle();
    const failed = Promise.reject(new Error("cut"));
    failed.catch(() => undefined);
    expect(await readyThisTurn(failed)).toBe(false);
  });
});

describe("a reply's deltas, from a real provider stream", () => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const text = "The quick brown fox jumps over the lazy dog. ".repeat(20);
  const args = { path: "src/a-rather-long-name/of-a-file.ts", content: "x".repeat(300) };
  const reply = (extra: Partial<ScriptedTurn> = {}): ScriptedTurn => ({
    content: [
      { type: "text", text },
      { type: "tool_use", name: "write_to_file", input: args },
    ],
    chunkSize: 10,
    ...extra,
  });

  async function stream(provider: ProviderId, turn: ScriptedTurn): Promise<Array<{ event: ModelEvent; at: number }>> {
    server = await startScriptedModelServer({ turns: [turn] });
    const model = createModel({ provider, model: "scripted", apiKey: "k", baseUrl: provider === "anthropic" ? server.url : `${server.url}/v1` });
    const request = {
      system: "s",
      messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
      tools: [{ name: "write_to_file", description: "w", inputSchema: { type: "object", properties: {} } }],
    };
    const seen: Array<{ event: ModelEvent; at: number }> = [];
    for await (const event of model.stream(request, new AbortController().signal)) seen.push({ event, at: performance.now() });
    return seen;
  }

  const texts = (seen: Array<{ event: ModelEvent }>) => seen.flatMap(({ event }) => (event.type === "text-delta" ? [event.text] : []));
  const argPieces = (seen: Array<{ event: ModelEvent }>) => seen.flatMap(({ event }) => (event.type === "tool-call-delta" ? [event.argsText] : []));

  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: a burst of deltas (the whole reply in one read) reaches the loop as a few, the text and the arguments whole`, async () => {
      const seen = await stream(provider, reply());
      const pieces = Math.ceil(text.length / 10);
      expect(texts(seen).join("")).toBe(text);
      expect(texts(seen).length).toBeLessThan(pieces / 4);
      expect(JSON.parse(argPieces(seen).join(""))).toEqual(args);
      const call = seen.find(({ event }) => event.type === "tool-call")?.event;
      expect(call?.type === "tool-call" && JSON.parse(call.argsText)).toEqual(args);
      // The order holds: the text, then the call's start, its arguments, the call, the finish.
      const kinds = seen.map(({ event }) => event.type).filter((type, i, all) => type !== all[i - 1]);
      expect(kinds).toEqual(["text-delta", "tool-call-start", "tool-call-delta", "tool-call", "finish"]);
    });

    it(`${provider}: deltas that come one by one are each passed on at once: none waits for the next`, async () => {
      // Pauses long enough that a busy machine still reads each piece before the next is sent.
      const paced = { content: [{ type: "text" as const, text: "one two six!" }], chunkSize: 4, chunkDelayMs: 250 };
      const seen = await stream(provider, paced);
      const deltas = seen.filter(({ event }) => event.type === "text-delta");
      expect(texts(seen)).toEqual(["one ", "two ", "six!"]);
      // Each came a pause after the one before it, not all at the end.
      const gaps = deltas.slice(1).map((d, i) => d.at - deltas[i]!.at);
      expect(Math.min(...gaps)).toBeGreaterThan(150);
    });
  }
});
