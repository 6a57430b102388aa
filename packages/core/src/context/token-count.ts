import type { Tiktoken } from "js-tiktoken/lite";
import type { Message } from "../model/types.js";

let encoder: Tiktoken | undefined;

/** o200k_base, loaded on first use (about half a second) and kept for the process. */
async function loadEncoder(): Promise<Tiktoken> {
  if (!encoder) {
    const [{ Tiktoken: Encoder }, ranks] = await Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]);
    encoder = new Encoder(ranks.default);
  }
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

const cache = new WeakMap<Message, number>();

/** Tokens of one message, counted once per message object. */
export async function countMessageTokens(message: Message): Promise<number> {
  const cached = cache.get(message);
  if (cached !== undefined) return cached;
  let total = messageOverhead;
  for (const part of message.content) {
    if (part.type === "text" || part.type === "reasoning") total += await countTextTokens(part.text);
    else if (part.type === "image") total += imageTokens;
    else if (part.type === "tool-call") total += await countTextTokens(`${part.name}${JSON.stringify(part.input)}`);
    else for (const c of part.content) total += c.type === "text" ? await countTextTokens(c.text) : imageTokens;
  }
  cache.set(message, total);
  return total;
}

export async function countMessagesTokens(messages: readonly Message[]): Promise<number> {
  let total = 0;
  for (const message of messages) total += await countMessageTokens(message);
  return total;
}
