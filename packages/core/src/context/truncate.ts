import type { Message } from "../model/types.js";
import { countMessagesTokens } from "./token-count.js";
import { splitRounds, withNote } from "./rounds.js";

/**
 * Drops the oldest rounds after the first exchange until the conversation fits `targetTokens`,
 * always keeping the task, the first exchange and the last round. A note tells the model.
 */
export async function truncateMiddle(messages: Message[], targetTokens: number): Promise<{ messages: Message[]; dropped: number }> {
  const { opening, rounds } = splitRounds(messages);
  if (rounds.length <= 1) return { messages, dropped: 0 };
  const fixed = (await countMessagesTokens(opening)) + 64;
  const sizes = await Promise.all(rounds.map((r) => countMessagesTokens(r)));
  let total = fixed + sizes.reduce((a, b) => a + b, 0);
  let cut = 0;
  while (cut < rounds.length - 1 && total > targetTokens) {
    total -= sizes[cut]!;
    cut++;
  }
  if (cut === 0) return { messages, dropped: 0 };
  const dropped = rounds.slice(0, cut).reduce((n, r) => n + r.length, 0);
  const note = `[${dropped} earlier messages of this conversation were removed to fit the context window. The task and the first exchange are above; the most recent work follows.]`;
  return { messages: [...withNote(opening, note), ...rounds.slice(cut).flat()], dropped };
}
