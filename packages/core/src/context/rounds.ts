import type { Message } from "../model/types.js";

/**
 * Splits a conversation into its opening (the task and the first exchange) and rounds: an
 * assistant message with the user messages that follow it. Dropping whole rounds keeps every
 * tool call paired with its result, whatever the wire format.
 */
export function splitRounds(messages: readonly Message[]): { opening: Message[]; rounds: Message[][] } {
  const assistants = messages.flatMap((m, i) => (m.role === "assistant" ? [i] : []));
  const openingEnd = assistants[1] ?? messages.length;
  const opening = messages.slice(0, openingEnd);
  const rounds: Message[][] = [];
  for (let i = openingEnd; i < messages.length; i++) {
    if (messages[i]!.role === "assistant" || rounds.length === 0) rounds.push([messages[i]!]);
    else rounds[rounds.length - 1]!.push(messages[i]!);
  }
  return { opening, rounds };
}

export const contextNoteMarker = "[Context note]";

/** Adds a note to the last message of the opening (replacing an earlier context note there). */
export function withNote(opening: Message[], note: string): Message[] {
  const last = opening[opening.length - 1];
  const text = `${contextNoteMarker} ${note}`;
  if (!last) return opening;
  if (last.role === "user") {
    const kept = last.content.filter((p) => !(p.type === "text" && p.text.startsWith(contextNoteMarker)));
    return [...opening.slice(0, -1), { role: "user", content: [...kept, { type: "text", text }] }];
  }
  return [...opening, { role: "user", content: [{ type: "text", text }] }];
}
