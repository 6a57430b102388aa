import type { Tiktoken } from "js-tiktoken/lite";
import type { Message } from "../model/types.js";
import { estimateTextTokens } from "./token-estimate.js";

let encoder: Promise<Tiktoken> | undefined;

/**
 * o200k_base, loaded on first use and kept for the process. It costs about half a second of CPU
 * and tens of megabytes, so it is loaded only where a count must be exact (a conversation near
 * the window, see fit-context.ts); everything else uses the estimate (token-estimate.ts).
 */
function loadEncoder(): Promise<Tiktoken> {
  encoder ??= Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]).then(
    ([{ Tiktoken: Encoder }, ranks]) => new Encoder(ranks.default),
    (error: unknown) => {
      encoder = undefined;
      throw error;
    },
  );
  return encoder;
}

/** Tokens a text costs. The encoder is exact for OpenAI models and within a few percent for others. */
export async function countTextTokens(text: string): Promise<number> {
  if (text.length === 0) return 0;
  return (await loadEncoder()).encode(text, [], []).length;
}

/** Images are billed by size; this flat figure is what a typical screenshot costs. */
const imageTokens = 1_600;
/** Per-message framing (role, separators) that providers add. */
const messageOverhead = 4;

const exact = new WeakMap<Message, number>();
const estimated = new WeakMap<Message, number>();

/** Tokens of one message by `count`, once per message object. */
function tokensOf(message: Message, count: (text: string) => number, cache: WeakMap<Message, number>): number {
  const cached = cache.get(message);
  if (cached !== undefined) return cached;
  let total = messageOverhead;
  for (const part of message.content) {
    if (part.type === "text" || part.type === "reasoning") total += count(part.text);
    else if (part.type === "image") total += imageTokens;
    else if (part.type === "tool-call") total += count(`${part.name}${JSON.stringify(part.input)}`);
    else for (const c of part.content) total += c.type === "text" ? count(c.text) : imageTokens;
  }
  cache.set(message, total);
  return total;
}

/** Exact tokens of one message (loads the tokenizer). */
export async function countMessageTokens(message: Message): Promise<number> {
  const tokenizer = await loadEncoder();
  return tokensOf(message, (text) => (text.length === 0 ? 0 : tokenizer.encode(text, [], []).length), exact);
}

export async function countMessagesTokens(messages: readonly Message[]): Promise<number> {
  let total = 0;
  for (const message of messages) total += await countMessageTokens(message);
  return total;
}

/** Estimated tokens of one message: no tokenizer, microseconds per kilobyte. */
export function estimateMessageTokens(message: Message): number {
  return tokensOf(message, estimateTextTokens, estimated);
}

export function estimateMessagesTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}
