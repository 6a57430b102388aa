import { InvalidResponseDataError, type LanguageModelV3, type LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { CallIds } from "./call-ids.js";
import { classifyModelError } from "./classify-error.js";
import { DeltaBatch, readyThisTurn } from "./delta-batch.js";
import type { Endpoint } from "./endpoint.js";
import { ModelError } from "./errors.js";
import { imageLimits } from "./image-limits.js";
import { reasoningProviderOptions, type ReasoningOptions } from "./reasoning.js";
import { RawStreamFacts, refusalLine } from "./raw-facts.js";
import { endsWithDone, watchStreamEnd, type StreamEnd } from "./stream-end.js";
import { toProviderPrompt } from "./to-provider-prompt.js";
import { reasoningDetailsMark, redactedThinkingMark, type FinishReason, type Model, type ModelEvent, type ModelInfo, type ModelRequest, type ProviderId } from "./types.js";
import { usageAsMeant } from "./usage.js";

function toFinishReason(unified: string): FinishReason {
  switch (unified) {
    case "stop":
    case "length":
    case "tool-calls":
    case "content-filter":
      return unified;
    default:
      return "other";
  }
}

/** The OpenAI-format SDKs' complaint, at the end of a stream, that no chunk carried a finish_reason. */
function isMissingFinishReason(error: unknown): boolean {
  return InvalidResponseDataError.isInstance(error) && /without a finish reason/i.test(error.message);
}

/** True when a tool call's arguments are a whole JSON object; no proper prefix of one is. */
function isCompleteJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The stream parts whose deltas are joined when they come together (DeltaBatch); `raw` passes nothing on. */
const batched = new Set<LanguageModelV3StreamPart["type"]>(["text-delta", "reasoning-delta", "tool-input-delta", "raw"]);

/** Adapts an AI SDK provider model (LanguageModelV3) to Cairn's one-method Model. */
export class AiSdkModel implements Model {
  /** An earlier request reached the endpoint, so its URL is right (see ModelErrorContext). */
  private answered = false;

  constructor(
    readonly provider: ProviderId,
    readonly id: string,
    readonly info: ModelInfo,
    private readonly model: LanguageModelV3,
    /** Names the provider, model and URL in error messages. */
    private readonly endpoint?: Endpoint,
    /** Extended thinking / reasoning effort for every request of this model. */
    private readonly reasoning?: ReasoningOptions,
  ) {}

  private cut(): ModelError {
    const where = this.endpoint ? ` from ${this.endpoint.url}` : "";
    return new ModelError("stream_cut", `The model's response stream${where} ended before it finished.`);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    let started = false;
    let finished = false;
    let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
    // The OpenAI-format SDKs hand over every pending tool call when the stream ends, cleanly or not,
    // with whatever arguments arrived. Calls whose arguments are not yet a whole JSON object wait for
    // a real finish reason; on a cut stream they are dropped, so a half-written call never runs.
    const held: ModelEvent[] = [];
    let reasoningChars = 0;
    let outputChars = 0;
    let sawToolCall = false;
    // A stream that closed with `data: [DONE]` after content but never said why it stopped is done.
    const end: StreamEnd = { doneSeen: false };
    let finishedWithoutReason = false;
    // An error chunk after the provider already said "length" only restates the output limit.
    const facts = new RawStreamFacts();
    let limitError = false;
    const ids = new CallIds();
    const batch = new DeltaBatch();
    const providerOptions = reasoningProviderOptions(this.provider, this.reasoning);
    const watch = endsWithDone(this.provider) ? watchStreamEnd(end, signal) : undefined;
    try {
      const result = await this.model.doStream({
        prompt: toProviderPrompt(request.system, request.messages, {
          anthropic: this.provider === "anthropic",
          images: this.info.supportsImages,
          reasoningDetails: this.provider !== "anthropic" && this.provider !== "openai",
          imageLimits: imageLimits(this.provider),
        }),
        abortSignal: watch?.signal ?? signal,
        includeRawChunks: true,
        // Never ask for more than a quarter of the window, which context management keeps free.
        maxOutputTokens: request.maxOutputTokens ?? Math.min(this.info.maxOutputTokens, Math.floor(this.info.contextWindow / 4)),
        ...(request.tools
          ? { tools: request.tools.map((t) => ({ type: "function" as const, name: t.name, description: t.description, inputSchema: t.inputSchema })) }
          : {}),
        ...(providerOptions ? { providerOptions } : {}),
      });
      this.answered = true;
      reader = result.stream.getReader();
      for (;;) {
        const reading = reader.read();
        // Deltas held while more of them were queued: passed on once the queue is read.
        if (batch.holding && !(await readyThisTurn(reading))) yield batch.take()!;
        const { done, value: part } = await reading;
        if (done) break;
        if (!batched.has(part.type)) {
          const held = batch.take();
          if (held) yield held;
        }
        switch (part.type) {
          case "text-delta":
            if (part.delta) {
              started = true;
              outputChars += part.delta.length;
              const before = batch.add({ type: "text-delta", text: part.delta });
              if (before) yield before;
            }
            break;
          case "reasoning-delta": {
            started = true;
            reasoningChars += part.delta.length;
            const signature = (part.providerMetadata?.anthropic as { signature?: string } | undefined)?.signature;
            const before = batch.add(signature ? { type: "reasoning-delta", text: part.delta, signature } : { type: "reasoning-delta", text: part.delta });
            if (before) yield before;
            break;
          }
          case "reasoning-start": {
            // Anthropic's redacted thinking arrives whole, encrypted, with no deltas; it is kept to be sent back, never shown.
            const redacted = (part.providerMetadata?.anthropic as { redactedData?: unknown } | undefined)?.redactedData;
            if (typeof redacted === "string") {
              started = true;
              yield { type: "reasoning-delta", text: "", signature: `${redactedThinkingMark}${redacted}` };
            }
            break;
          }
          case "tool-input-start":
            started = true;
            yield { type: "tool-call-start", id: ids.start(part.id), name: part.toolName };
            break;
          case "tool-input-delta": {
            const before = batch.add({ type: "tool-call-delta", id: ids.delta(part.id), argsText: part.delta });
            if (before) yield before;
            break;
          }
          case "tool-call": {
            started = true;
            sawToolCall = true;
            outputChars += part.toolName.length + part.input.length;
            const call: ModelEvent = { type: "tool-call", id: ids.complete(part.toolCallId), providerId: part.toolCallId, name: part.toolName, argsText: part.input };
            if (isCompleteJsonObject(part.input)) yield call;
            else held.push(call);
            break;
          }
          case "raw":
            facts.observe(part.rawValue);
            break;
          case "error":
            if (isMissingFinishReason(part.error) && end.doneSeen && started) {
              finishedWithoutReason = true;
              break;
            }
            if (facts.stopReason === "length" && started) {
              limitError = true;
              break;
            }
            throw part.error;
          case "finish": {
            // A finish without the provider's own stop reason means the stream ended early, unless
            // the server closed it with [DONE] after content: then the reply is whole as it stands.
            if (!finishedWithoutReason && !limitError && part.finishReason.raw === undefined && part.finishReason.unified === "other") {
              throw this.cut();
            }
            finished = true;
            yield* held;
            // OpenRouter's reasoning details go back with this reply (see to-provider-prompt.ts); kept, never shown.
            const details = facts.reasoningDetails();
            if (details) yield { type: "reasoning-delta", text: "", signature: `${reasoningDetailsMark}${JSON.stringify(details)}` };
            const reason = limitError ? "length" : finishedWithoutReason ? (sawToolCall ? "tool-calls" : "stop") : toFinishReason(part.finishReason.unified);
            // A refusal or a filtered reply is said in one line, to the person and, in the reply, the model.
            const refused = refusalLine(this.provider, facts, reason === "content-filter");
            if (refused) yield { type: "text-delta", text: outputChars > 0 ? `\n${refused}` : refused };
            const promptChars = request.system.length + JSON.stringify(request.messages).length + (request.tools ? JSON.stringify(request.tools).length : 0);
            const usage = usageAsMeant(part.usage, facts, { prompt: promptChars, output: outputChars, reasoning: reasoningChars });
            yield { type: "finish", reason, usage };
            break;
          }
          default:
            break;
        }
      }
      if (!finished) {
        const held = batch.take();
        if (held) yield held;
        throw this.cut();
      }
    } catch (error) {
      throw classifyModelError(error, started, signal, this.endpoint, { answeredBefore: this.answered });
    } finally {
      // Closes the HTTP response when the consumer stops early or the stream failed.
      if (!finished) await reader?.cancel().catch(() => undefined);
      watch?.release();
    }
  }
}
