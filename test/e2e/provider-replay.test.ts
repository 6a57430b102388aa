/**
 * Real provider streams, from the project's own recordings (test/support/provider-replays, with
 * their sources and every adaptation in its README), replayed byte for byte through the real CLI:
 * one test per way real providers differ from the ideal stream.
 */
import { imageSize } from "image-size";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { checkReplay, recordedStream, replay, type Recording, type Replayed } from "../support/provider-replay.js";
import { startScriptedModelServer } from "../support/scripted-model-server.js";
import { endedCalls } from "../support/tool-call-events.js";

const fx = useE2eFixture();

type Case = Pick<Recording, "provider" | "model" | "task" | "responses"> & Partial<Recording>;

function run(c: Case): Promise<Replayed> {
  const recording: Recording = {
    name: c.task,
    title: c.task,
    args: [],
    workspace: {},
    finish: { tool: "attempt_completion", input: { result: "REPLAY_FINISHED" }, usage: { input: 1000, output: 10 } },
    expect: {},
    ...c,
  };
  return replay(recording, { workspace: fx.workspace.dir, home: fx.home.dir });
}

type Event = Replayed["run"]["events"][number];
const ofType = (r: Replayed, type: string) => r.run.events.filter((e) => e.type === type);
const retries = (r: Replayed) => r.run.events.filter((e) => e.type === "system" && e.subtype === "api_retry");
const usages = (r: Replayed) => ofType(r, "usage").map((e) => e.usage as Record<string, number | boolean>);
const texts = (r: Replayed) => ofType(r, "text_delta").map((e) => String(e.text)).join("");
const answers = (r: Replayed) =>
  ofType(r, "assistant").flatMap((e: Event) => (e.message as { content: Array<{ type: string; text?: string }> }).content.filter((p) => p.type === "text").map((p) => p.text!));
const result = (r: Replayed) => r.run.events.at(-1) as Event & { subtype: string; result: string; total_cost_usd: number | null; session_id: string };
/** Every request well-formed: no call id repeated (checkReplay with no expectations checks just that). */
const wellFormed = (r: Replayed, c: Case) => checkReplay({ ...(c as Recording), finish: { tool: "attempt_completion", input: {}, usage: { input: 0, output: 0 } }, expect: {} }, r);

describe("a reply that ends without finish_reason (Snowflake Cortex)", () => {
  const snowflake = { provider: "openai-compatible", model: "claude-sonnet-4-6", task: "What is 15 * 27?" } as const;

  it("is complete when the stream closed with [DONE]: no re-send, the answer kept", async () => {
    const r = await run({ ...snowflake, responses: [recordedStream("snowflake-cortex-no-finish-reason.sse")] });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(retries(r)).toEqual([]);
    expect(ofType(r, "stream_discarded")).toEqual([]);
    expect(answers(r).join("")).toContain("15 × 27 = **405**");
    // The answer, then the finish after Cairn asks for a tool call: no request was sent twice.
    expect(r.server.requests).toHaveLength(2);
    expect(usages(r)[0]).toMatchObject({ input_tokens: 45, output_tokens: 73 });
  }, 120_000);

  it("is still a cut stream, retried, when the connection closed before [DONE]", async () => {
    const cut = recordedStream("snowflake-cortex-no-finish-reason.sse", (body) => body.replace(/data: \[DONE\]\n\n$/, ""));
    const r = await run({ ...snowflake, responses: [cut, recordedStream("snowflake-cortex-no-finish-reason.sse")] });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(retries(r)).toHaveLength(1);
    expect(ofType(r, "stream_discarded")).toHaveLength(1);
    expect(answers(r).filter((text) => text.includes("405"))).toHaveLength(1);
  }, 120_000);
});

describe("errors classified by what the provider says", () => {
  const groq = { provider: "openai-compatible", model: "openai/gpt-oss-120b", task: "Answer yes or no." } as const;

  it("Groq's tool_use_failed mid-stream is retried, and the next sample's call runs", async () => {
    const r = await run({ ...groq, responses: [recordedStream("groq-tool-use-failed.1.sse"), recordedStream("groq-tool-use-failed.2.sse")] });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(retries(r)).toHaveLength(1);
    expect(String(retries(r)[0]!.error)).toContain("tool_use_failed");
    expect(result(r)).toMatchObject({ subtype: "success", result: "no" });
    // The text of the rejected sample ("maybe") was discarded with it.
    expect(answers(r).join("")).not.toContain("maybe");
  }, 120_000);

  it("says in one line what failed when every retry gets tool_use_failed", async () => {
    const r = await run({
      ...groq,
      responses: [recordedStream("groq-tool-use-failed.1.sse"), recordedStream("groq-tool-use-failed.1.sse")],
      settings: { retry: { baseDelayMs: 20, maxDelayMs: 200, maxRetries: 1 } },
    });
    expect(r.run.code).not.toBe(0);
    expect(r.server.requests).toHaveLength(2);
    const errors = ofType(r, "error");
    expect(errors).toHaveLength(1);
    const line = String(errors[0]!.message);
    expect(line).not.toContain("\n");
    expect(line).toContain("tool_use_failed");
    expect(line).toContain("Tool choice is required, but model did not call a tool");
    expect(result(r)).toMatchObject({ subtype: "error_during_execution", result: `The model request failed: ${line}` });
  }, 120_000);

  it("OpenRouter's error chunk after a length stop continues the cut reply instead of ending the task", async () => {
    const r = await run({ provider: "openrouter", model: "minimax/minimax-m2:free", task: "Hi", responses: [recordedStream("openrouter-length-then-error.sse")] });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(result(r)).toMatchObject({ subtype: "success", result: "REPLAY_FINISHED" });
    expect(r.server.requests).toHaveLength(2);
    // The reasoning streamed as reasoning, and the usage the error chunk carried was counted.
    expect(ofType(r, "reasoning_delta").map((e) => e.text).join("")).toContain("We need to respond to a greeting");
    expect(usages(r)[0]).toMatchObject({ input_tokens: 43, output_tokens: 10 });
    // OpenRouter says what the request cost (0, a free model): that figure is the price, though no table knows the model.
    expect(ofType(r, "usage")[0]).toMatchObject({ cost_usd: 0 });
  }, 120_000);
});

describe("prices by exact model id", () => {
  const gpt4oMini = {
    provider: "openai",
    task: "What is the capital of the UK? Use the tool, then answer.",
    workspace: { files: { UK: "London is the capital of the United Kingdom.\n" } },
    responses: [recordedStream("openai-gpt-4o-mini-call.1.sse"), recordedStream("openai-gpt-4o-mini-call.2.sse")],
  };

  it("prices gpt-4o-mini as gpt-4o-mini, not gpt-4o", async () => {
    const r = await run({ ...gpt4oMini, model: "gpt-4o-mini" });
    expect(r.run.code, r.run.stderr).toBe(0);
    // 1,131 input and 34 output tokens at $0.15 and $0.60 per million: $0.00019 (gpt-4o's price: $0.0032).
    expect(result(r).total_cost_usd).toBeCloseTo(0.00019005, 7);
  }, 120_000);

  it("says once, at the start, that --max-budget-usd cannot stop a model with no known price; not for a priced one", async () => {
    const warning = "no price is known for gpt-4o-mini-search-preview; --max-budget-usd cannot stop this task — add its price under models in settings.json";
    const unpriced = await run({ ...gpt4oMini, model: "gpt-4o-mini-search-preview", args: ["--max-budget-usd", "0.5"] });
    expect(unpriced.run.code, unpriced.run.stderr).toBe(0);
    const notices = unpriced.run.events.filter((e) => e.type === "system" && e.subtype === "notice").map((e) => e.message);
    expect(notices.filter((m) => String(m).includes("--max-budget-usd"))).toEqual([warning]);
    expect(unpriced.run.events.findIndex((e) => e.message === warning)).toBeLessThan(unpriced.run.events.findIndex((e) => e.type === "usage"));

    const priced = await run({ ...gpt4oMini, model: "gpt-4o-mini", args: ["--max-budget-usd", "0.5"] });
    expect(priced.run.code, priced.run.stderr).toBe(0);
    expect(priced.run.stdout).not.toContain("no price is known");
  }, 120_000);

  it("shows tokens and no price for a model it does not know, never a neighbour's", async () => {
    const r = await run({ ...gpt4oMini, model: "gpt-4o-mini-search-preview" });
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(result(r).total_cost_usd).toBeNull();
    expect(usages(r)[0]).toMatchObject({ input_tokens: 53, output_tokens: 15 });
  }, 120_000);
});

describe("usage as the provider means it", () => {
  it("counts xAI's reasoning, reported beside completion tokens, as output", async () => {
    const r = await run({ provider: "openai-compatible", model: "grok-3-mini", task: "Say hi", responses: [recordedStream("xai-reasoning-usage.sse")] });
    expect(r.run.code, r.run.stderr).toBe(0);
    // total_tokens 354 = 12 prompt + 2 completion + 340 reasoning.
    expect(usages(r)[0]).toMatchObject({ input_tokens: 1, cache_read_input_tokens: 11, output_tokens: 342, reasoning_output_tokens: 340 });
    expect(texts(r)).not.toContain("First, the user said");
  }, 120_000);

  it("estimates, and marks, the usage of a server that reports none", async () => {
    const r = await run({
      provider: "openai-compatible",
      model: "local-coder",
      task: "Read a.txt and summarise it.",
      workspace: { files: { "a.txt": "alpha beta gamma\n" } },
      responses: [recordedStream("compatible-no-usage.sse")],
    });
    expect(r.run.code, r.run.stderr).toBe(0);
    const first = usages(r)[0]!;
    expect(first.estimated).toBe(true);
    expect(first.input_tokens).toBeGreaterThan(100);
    expect(first.output_tokens).toBeGreaterThan(0);
    // The finish turn's usage was reported, so it is not marked.
    expect(usages(r)[1]!.estimated).toBeUndefined();
  }, 120_000);
});

describe("reasoning that Mistral streams as content parts", () => {
  it("is reasoning, not answer text, and counted: an estimate where Mistral reports no reasoning tokens", async () => {
    const r = await run({ provider: "openai-compatible", model: "mistral-small-latest", task: "What is 17 times 23?", responses: [recordedStream("mistral-thinking-parts.sse")] });
    expect(r.run.code, r.run.stderr).toBe(0);
    const reasoning = ofType(r, "reasoning_delta").map((e) => e.text).join("");
    expect(reasoning).toMatch(/^Okay, the user is asking for the product of 17 and 23\./);
    expect(reasoning).toContain("So, 17 * 23 = 391.");
    expect(answers(r).join("")).toBe("391");
    expect(texts(r)).not.toContain("the user is asking");
    // completion_tokens 139 include the reasoning, which Mistral does not count apart: estimated from its text, within the 139.
    const first = usages(r)[0]!;
    expect(first).toMatchObject({ input_tokens: 28, output_tokens: 139 });
    expect(first.reasoning_output_tokens).toBeGreaterThan(50);
    expect(first.reasoning_output_tokens).toBeLessThan(139);
  }, 120_000);
});

describe("images in tool results over Chat Completions", () => {
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGP4z8AARwzEcQCukw/x0F8jngAAAABJRU5ErkJggg==";
  const image = {
    task: "Look at the picture UK.png and tell me its main colour.",
    workspace: { binary: { "UK.png": png } },
    responses: [recordedStream("openai-image-call.sse")],
  };

  it("a vision model gets the tool message's text, then a user message with the image part", async () => {
    const r = await run({ ...image, provider: "openai", model: "gpt-4o-mini" });
    expect(r.run.code, r.run.stderr).toBe(0);
    const messages: any[] = r.server.requests[1]!.body.messages;
    const tool = messages.findIndex((m) => m.role === "tool");
    expect(typeof messages[tool].content).toBe("string");
    expect(messages[tool].content).not.toContain(png);
    expect(messages[tool + 1].role).toBe("user");
    expect(messages[tool + 1].content).toContainEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${png}` } });
  }, 120_000);

  it("a text-only model gets a one-line note and no base64", async () => {
    const r = await run({ ...image, provider: "openai-compatible", model: "local-coder" });
    expect(r.run.code, r.run.stderr).toBe(0);
    const request = JSON.stringify(r.server.requests[1]!.body);
    expect(request).not.toContain(png.slice(0, 40));
    const tool = r.server.requests[1]!.body.messages.find((m: any) => m.role === "tool");
    expect(tool.content).toMatch(/^UK\.png is an image, and the current model cannot take images\./);
    expect(tool.content.split("\n")).toHaveLength(1);
  }, 120_000);
});

describe("images sized to the provider's limits", () => {
  /** A real PNG of width×height: a gradient with stripes, so scaling has something to average. */
  const bigPng = (width: number, height: number) => {
    const png = new PNG({ width, height });
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        png.data[i] = (x * 255) / width;
        png.data[i + 1] = (y * 255) / height;
        png.data[i + 2] = (x >> 4) % 2 ? 255 : 0;
        png.data[i + 3] = 255;
      }
    }
    return PNG.sync.write(png).toString("base64");
  };
  const sizeOf = (base64: string) => imageSize(Buffer.from(base64, "base64"));

  it("Anthropic: a 9000×600 PNG, over its 8000 px limit, reaches the model scaled to 1568 px with a note of the scale", async () => {
    const png = bigPng(9000, 600);
    const r = await run({
      provider: "anthropic",
      model: "claude-haiku-4-5",
      task: "Look at big.png.",
      workspace: { binary: { "big.png": png } },
      // The recorded read_file call, its path made big.png (a variant of this test).
      responses: [recordedStream("anthropic-tool-use.sse", (body) => body.replace("San Francisco", "big.png"))],
    });
    expect(r.run.code, r.run.stderr).toBe(0);
    const results = r.server.requests[1]!.body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result") : []));
    const content: any[] = results[0].content;
    const image = content.find((b) => b.type === "image");
    expect(image.source.media_type).toBe("image/png");
    expect(sizeOf(image.source.data)).toMatchObject({ width: 1568, height: 105 });
    expect(image.source.data.length).toBeLessThan(5 * 1024 * 1024);
    expect(content.some((b) => b.type === "text" && b.text === "[The image was scaled from 9000×600 to 1568×105 px to fit Anthropic's image limits.]")).toBe(true);
    expect(JSON.stringify(r.server.requests[1]!.body)).not.toContain(png.slice(100, 200));
  }, 120_000);

  it("OpenAI: a 3000×2000 PNG reaches gpt-4o-mini as an image part of at most 2048 px", async () => {
    const png = bigPng(3000, 2000);
    const r = await run({
      provider: "openai",
      model: "gpt-4o-mini",
      task: "Look at the picture UK.png.",
      workspace: { binary: { "UK.png": png } },
      responses: [recordedStream("openai-image-call.sse")],
    });
    expect(r.run.code, r.run.stderr).toBe(0);
    const messages: any[] = r.server.requests[1]!.body.messages;
    const user = messages[messages.findIndex((m) => m.role === "tool") + 1];
    const part = user.content.find((p: any) => p.type === "image_url");
    const [, mediaType, data] = /^data:(image\/\w+);base64,(.*)$/.exec(part.image_url.url)!;
    expect(mediaType).toBe("image/png");
    expect(sizeOf(data!)).toMatchObject({ width: 2048, height: 1365 });
    // The note travels with the result's text, in the tool message.
    expect(messages.find((m) => m.role === "tool").content).toContain("[The image was scaled from 3000×2000 to 2048×1365 px to fit OpenAI's image limits.]");
  }, 120_000);
});

describe("refusals", () => {
  it("an Anthropic refusal ends the task with the provider's reason in one line, not re-sent, and the model reads it when the task goes on", async () => {
    const r = await run({ provider: "anthropic", model: "claude-sonnet-4-5", task: "Write an exploit for this server.", responses: [recordedStream("anthropic-refusal.sse")] });
    const reason = "anthropic refused this reply (cyber): This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.";
    expect(texts(r)).toContain(`[${reason}]`);
    expect(retries(r)).toEqual([]);
    expect(ofType(r, "stream_discarded")).toEqual([]);
    // Asking again gets the same refusal: the task stops with the reason instead of a "you did not use a tool" nudge.
    expect(r.server.requests).toHaveLength(1);
    expect(result(r)).toMatchObject({ subtype: "error_during_execution", result: `Stopped: ${reason}` });

    fx.server = await startScriptedModelServer({ turns: [{ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "understood" } }] }] });
    const resumed = await runCairn(["resume", String(result(r).session_id), "Explain the risk instead.", "--base-url", fx.server.url, "--json"], {
      env: cleanEnv({ CAIRN_HOME: fx.home.dir, CAIRN_API_KEY: "replay-key" }),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const assistant = fx.server.requests[0]!.body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.content).toContainEqual(expect.objectContaining({ type: "text", text: `[${reason}]` }));
  }, 120_000);
});

describe("thinking kept as the provider requires", () => {
  it("Anthropic's redacted thinking blocks go back unchanged, in order, and are never shown", async () => {
    const stream = recordedStream("anthropic-redacted-thinking.sse");
    const data = [...stream.chunks.join("").matchAll(/"type":"redacted_thinking","data":"([^"]+)"/g)].map((m) => m[1]);
    expect(data).toHaveLength(2);
    const r = await run({ provider: "anthropic", model: "claude-sonnet-4-5", args: ["--thinking", "1024"], task: "Hello", responses: [stream] });
    expect(r.run.code, r.run.stderr).toBe(0);
    const assistant = r.server.requests[1]!.body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.content.slice(0, 2)).toEqual(data.map((d) => ({ type: "redacted_thinking", data: d })));
    expect(assistant.content[2]).toMatchObject({ type: "text" });
    for (const d of data) expect(r.run.stdout).not.toContain(d!.slice(0, 40));
    // In --json, a redacted block shows as one, without its data, never as an empty thinking entry.
    const shown = (ofType(r, "assistant")[0]!.message as { content: Array<{ type: string }> }).content;
    expect(shown.slice(0, 2)).toEqual([{ type: "redacted_thinking" }, { type: "redacted_thinking" }]);
    expect(shown.map((p) => p.type)).toEqual(["redacted_thinking", "redacted_thinking", "text"]);
  }, 120_000);
  it("interleaved thinking goes back where it came: thinking, text, tool_use, thinking, tool_use, each with its signature", async () => {
    const stream = recordedStream("anthropic-interleaved-thinking.sse");
    const body = stream.chunks.join("");
    const signature = /"signature":"([^"]+)"/.exec(body.replace(/"signature":""/g, ""))![1];
    const redacted = /"type":"redacted_thinking","data":"([^"]+)"/.exec(body)![1];
    const r = await run({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      args: ["--thinking", "1024"],
      task: "Read the weather for San Francisco and Oakland.",
      workspace: { files: { "San Francisco": "Foggy, 14 C\n", Oakland: "Sunny, 19 C\n" } },
      responses: [stream],
    });
    expect(r.run.code, r.run.stderr).toBe(0);
    const assistant = r.server.requests[1]!.body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.content.map((b: any) => b.type)).toEqual(["thinking", "text", "tool_use", "redacted_thinking", "tool_use"]);
    expect(assistant.content[0]).toMatchObject({ signature });
    expect(assistant.content[0].thinking).toMatch(/^This is a straightforward question about pedestrian safety/);
    expect(assistant.content[1].text).toMatch(/^I notice that you've sent what appears/);
    expect(assistant.content[2]).toMatchObject({ id: "toolu_01KFbKqPYSuAKujiL6mTfzYA", input: { path: "San Francisco" } });
    expect(assistant.content[3]).toEqual({ type: "redacted_thinking", data: redacted });
    expect(assistant.content[4]).toMatchObject({ id: "toolu_01KFbKqPYSuAKujiL6mTfzYB", input: { path: "Oakland" } });
    // --json shows the reply in the same order, the redacted block without its data.
    const shown = (ofType(r, "assistant")[0]!.message as { content: Array<{ type: string }> }).content;
    expect(shown.map((p) => p.type)).toEqual(["thinking", "text", "tool_use", "redacted_thinking", "tool_use"]);
    expect(r.run.stdout).not.toContain(redacted!.slice(0, 40));
    expect(wellFormed(r, { provider: "anthropic", model: "claude-sonnet-4-5", task: "", responses: [] })).toEqual([]);
  }, 120_000);
  it("OpenRouter's reasoning_details go back with the assistant message, merged as they streamed, signature included", async () => {
    const stream = recordedStream("openrouter-reasoning-details.sse");
    const signature = /"signature":"(Et0B[^"]+)"/.exec(stream.chunks.join(""))![1]!;
    const r = await run({ provider: "openrouter", model: "anthropic/claude-sonnet-4.5", args: ["--thinking", "1024"], task: "What is 2+2?", responses: [stream] });
    expect(r.run.code, r.run.stderr).toBe(0);
    const assistant = r.server.requests[1]!.body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.reasoning_details).toEqual([
      { type: "reasoning.text", text: "This is a simple arithmetic question. 2+2 equals 4.", signature, format: "anthropic-claude-v1", index: 0 },
    ]);
    expect(assistant.content).toContain("4");
    // Kept to be sent back, never shown: the signature is in no event.
    expect(r.run.stdout).not.toContain(signature.slice(0, 40));
    expect(ofType(r, "reasoning_delta").map((e) => e.text).join("")).toBe("This is a simple arithmetic question. 2+2 equals 4.");
    // The details are no thinking block of their own in --json: the reply shows one thinking entry and the text.
    const shown = (ofType(r, "assistant")[0]!.message as { content: Array<{ type: string }> }).content;
    expect(shown.map((p) => p.type)).toEqual(["thinking", "text"]);
  }, 120_000);
});

describe("a provider that reuses tool-call ids across turns", () => {
  it("on the Chat Completions wire: two calls, two ids in --json, and no tool_call id repeated in the next request", async () => {
    const c: Case = {
      provider: "openai-compatible",
      model: "kimi-k2",
      task: "What is the capital of the UK? Check twice.",
      workspace: { files: { UK: "London is the capital of the United Kingdom.\n" } },
      // The same recorded call answers the first two requests, as servers that number calls per response (call_0) do.
      responses: [recordedStream("openai-gpt-4o-mini-call.1.sse"), recordedStream("openai-gpt-4o-mini-call.1.sse")],
    };
    const r = await run(c);
    expect(r.run.code, r.run.stderr).toBe(0);
    const calls = endedCalls(r.run.events).filter((call) => call.name === "read_file");
    expect(calls.map((call) => call.status)).toEqual(["completed", "completed"]);
    expect(new Set(calls.map((call) => call.tool_use_id)).size).toBe(2);
    expect(wellFormed(r, c)).toEqual([]);
    const ids = r.server.requests[2]!.body.messages.flatMap((m: any) => (m.tool_calls ?? []).map((t: any) => t.id));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  }, 120_000);

  it("on the Anthropic wire: two calls, two ids in --json, and no tool_use id repeated in the next request", async () => {
    const c: Case = {
      provider: "anthropic",
      model: "claude-haiku-4-5",
      task: "What is the weather in San Francisco? Check twice.",
      workspace: { files: { "San Francisco": "Foggy, 14 C\n" } },
      // The same recorded tool_use message answers the first two requests, as servers that number calls per response do.
      responses: [recordedStream("anthropic-tool-use.sse"), recordedStream("anthropic-tool-use.sse")],
    };
    const r = await run(c);
    expect(r.run.code, r.run.stderr).toBe(0);
    const calls = endedCalls(r.run.events).filter((call) => call.name === "read_file");
    expect(calls.map((call) => call.status)).toEqual(["completed", "completed"]);
    expect(new Set(calls.map((call) => call.tool_use_id)).size).toBe(2);
    // Cairn names the calls itself; the provider's id is not shown.
    expect(calls.map((call) => call.tool_use_id)).not.toContain("toolu_01KFbKqPYSuAKujiL6mTfzYA");
    expect(wellFormed(r, c)).toEqual([]);
    // Each tool_result answers its own tool_use, right after it.
    const messages: any[] = r.server.requests[2]!.body.messages;
    const uses = messages.flatMap((m, i) => (m.role === "assistant" ? m.content.filter((b: any) => b.type === "tool_use").map((b: any) => ({ id: b.id, at: i })) : []));
    for (const use of uses) expect(messages[use.at + 1].content.some((b: any) => b.type === "tool_result" && b.tool_use_id === use.id)).toBe(true);
    // The provider gets its own id back for the first call; the second, which repeated it, goes under Cairn's.
    expect(uses.map((use) => use.id)).toEqual(["toolu_01KFbKqPYSuAKujiL6mTfzYA", calls[1]!.tool_use_id]);
  }, 120_000);
});
