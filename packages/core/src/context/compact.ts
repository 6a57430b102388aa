import type { Message, Model } from "../model/types.js";
import { countMessagesTokens } from "./token-count.js";
import { splitRounds } from "./rounds.js";

export const compactionSystemPrompt = `You write the working memory of a coding agent whose conversation has grown too long. Summarise the conversation so far so that the agent can continue the task from your summary alone. Use these sections, in this order, concise but complete:
1. Task: what the user asked for, in their words where possible, with every requirement and constraint.
2. Decisions: what was decided and why.
3. Files: every file read, created or changed, with what matters about each (paths exact).
4. Commands: commands run and what their results showed.
5. State: what is done and what is not.
6. Open problems: errors not yet solved, doubts, things to check.
7. Next steps: what the agent was about to do.
Write plain text. Do not call tools.`;

const summaryRequest = "Summarise the conversation above as instructed. Reply with the summary only.";

export type CompactionResult = { messages: Message[]; summarized: number; summary: string };

/**
 * Replaces everything between the task and the recent rounds with a summary written by the model
 * (or a cheaper one). The task message is kept word for word; the recent rounds, which fit in
 * `keepTokens`, stay as they are, so every tool call keeps its result.
 */
export async function compactConversation(messages: Message[], model: Model, keepTokens: number, signal: AbortSignal): Promise<CompactionResult | undefined> {
  const first = messages[0];
  if (!first || first.role !== "user") return undefined;
  const { rounds } = splitRounds(messages);
  let keep = 0;
  let kept = 0;
  for (let i = rounds.length - 1; i >= 1; i--) {
    const size = await countMessagesTokens(rounds[i]!);
    if (kept + size > keepTokens && keep > 0) break;
    kept += size;
    keep++;
  }
  const tail = rounds.slice(rounds.length - keep).flat();
  const head = messages.slice(0, messages.length - tail.length);
  if (head.length <= 1) return undefined;

  let summary = "";
  for await (const event of model.stream({ system: compactionSystemPrompt, messages: [...head, { role: "user", content: [{ type: "text", text: summaryRequest }] }] }, signal)) {
    if (event.type === "text-delta") summary += event.text;
  }
  summary = summary.trim();
  if (summary === "") return undefined;
  const note = `[Context note] The conversation was compacted to fit the context window. Summary of the work so far:\n\n${summary}`;
  const opening: Message = { role: "user", content: [...first.content.filter((p) => p.type !== "tool-result"), { type: "text", text: note }] };
  return { messages: [opening, ...tail], summarized: head.length - 1, summary };
}
