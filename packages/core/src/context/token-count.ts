import type { Message } from "../model/types.js";
import { countExactly } from "./exact-tokenizer.js";
import { estimateTextTokens } from "./token-estimate.js";

/**
 * Tokens a text costs, exactly (o200k: exact for OpenAI models, within a few percent for others).
 * The tokenizer runs in a worker started on first use (exact-tokenizer.ts); everything that need
 * not be exact uses the estimate (token-estimate.ts).
 */
export async function countTextTokens(text: string): Promise<number> {
  if (text.length === 0) return 0;
  return (await countExactly([text]))[0]!;
}

/** Images are billed by size; this flat figure is what a typical screenshot costs. */
const imageTokens = 1_600;
/** Per-message framing (role, separators) that providers add. */
const messageOverhead = 4;

const exact = new WeakMap<Message, number>();
const estimated = new WeakMap<Message, number>();

/** The texts of a message that cost tokens, and the flat cost of its images and framing. */
function partsOf(message: Message): { texts: string[]; fixed: number } {
  const texts: string[] = [];
  let fixed = messageOverhead;
  for (const part of message.content) {
    if (part.type === "text" || part.type === "reasoning") texts.push(part.text);
    else if (part.type === "image") fixed += imageTokens;
    else if (part.type === "tool-call") texts.push(`${part.name}${JSON.stringify(part.input)}`);
    else {
      for (const c of part.content) {
        if (c.type === "text") texts.push(c.text);
        else fixed += imageTokens;
      }
    }
  }
  return { texts, fixed };
}

/** Exact tokens of one message, once per message object. */
export async function countMessageTokens(message: Message): Promise<number> {
  return countMessagesTokens([message]);
}

/** Exact tokens of messages; those not counted before go to the tokenizer in one request. */
export async function countMessagesTokens(messages: readonly Message[]): Promise<number> {
  const uncounted = [...new Set(messages.filter((m) => !exact.has(m)))];
  if (uncounted.length > 0) {
    const parts = uncounted.map(partsOf);
    const counts = await countExactly(parts.flatMap((p) => p.texts));
    let next = 0;
    uncounted.forEach((message, i) => {
      const { texts, fixed } = parts[i]!;
      let total = fixed;
      for (let k = 0; k < texts.length; k++) total += counts[next++]!;
      exact.set(message, total);
    });
  }
  return messages.reduce((sum, m) => sum + exact.get(m)!, 0);
}

/** Estimated tokens of one message, once per message object: no tokenizer, microseconds per kilobyte. */
export function estimateMessageTokens(message: Message): number {
  const cached = estimated.get(message);
  if (cached !== undefined) return cached;
  const { texts, fixed } = partsOf(message);
  const total = texts.reduce((sum, text) => sum + estimateTextTokens(text), fixed);
  estimated.set(message, total);
  return total;
}

export function estimateMessagesTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}
