import type { AssistantMessage, ReasoningPart } from "../model/types.js";

/** Where a thinking block began in the reply: how much text, and how many calls, came before it. */
export type ThinkingPlace = { textAt: number; callsAt: number };

/**
 * Puts each thinking block back where it came in the reply. A protocol builds the assistant
 * message as [thinking…, text, calls…]; with interleaved thinking (Anthropic) a reply goes
 * thinking, text, tool_use, thinking, tool_use…, and Anthropic checks each signed block against
 * its place, so the next request must carry them in that order. The text is cut at the offsets
 * where blocks began; between two blocks, text comes before calls (Anthropic's own order: tool_use
 * blocks close a segment). A reply whose blocks all came first is returned unchanged.
 */
export function placeThinking(message: AssistantMessage, places: ReadonlyMap<ReasoningPart, ThinkingPlace>): AssistantMessage {
  const blocks = message.content.filter((p): p is ReasoningPart => p.type === "reasoning");
  if (blocks.every((block) => (places.get(block)?.textAt ?? 0) === 0 && (places.get(block)?.callsAt ?? 0) === 0)) return message;
  const text = message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
  const calls = message.content.filter((p) => p.type === "tool-call");
  const content: AssistantMessage["content"] = [];
  let textAt = 0;
  let callsAt = 0;
  const upTo = (place: ThinkingPlace) => {
    const textEnd = Math.min(Math.max(place.textAt, textAt), text.length);
    if (textEnd > textAt) content.push({ type: "text", text: text.slice(textAt, textEnd) });
    textAt = textEnd;
    const callsEnd = Math.min(Math.max(place.callsAt, callsAt), calls.length);
    content.push(...calls.slice(callsAt, callsEnd));
    callsAt = callsEnd;
  };
  for (const block of blocks) {
    upTo(places.get(block) ?? { textAt: 0, callsAt: 0 });
    content.push(block);
  }
  upTo({ textAt: text.length, callsAt: calls.length });
  return { ...message, content };
}
