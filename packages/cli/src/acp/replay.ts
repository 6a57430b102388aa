import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { AgentEvent } from "@cairn/core";
import { foldEvent, initialTranscript, type TranscriptItem } from "@cairn/core/transcript";
import { planUpdate } from "./session-updates.js";
import { acpStatus, conversationMessage, endContent, textContent, toolCallStart } from "./tool-card.js";

/**
 * A loaded session's recorded events (its tasks' along their hand-offs, in order) as the updates
 * an editor would have seen live: core's fold of them, so each call has the card, and the id,
 * it had live; the person's words as they wrote them; each message's text and thinking before
 * its calls.
 */
export function replayUpdates(events: readonly AgentEvent[], cwd: string): SessionUpdate[] {
  // Each hand-off is recorded by both tasks: the one it leaves and the one it opens.
  const handoffs = new Set<string>();
  let transcript = initialTranscript();
  for (const event of events) {
    if (event.type === "handoff" && handoffs.has(event.task_id)) continue;
    if (event.type === "handoff") handoffs.add(event.task_id);
    transcript = foldEvent(transcript, event);
  }
  const updates = transcript.items.flatMap((item) => itemUpdates(item, cwd));
  return transcript.checklist.length > 0 ? [...updates, planUpdate(transcript.checklist)] : updates;
}

function itemUpdates(item: TranscriptItem, cwd: string): SessionUpdate[] {
  switch (item.kind) {
    case "user":
      return item.text === "" ? [] : [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: item.text } }];
    case "handoff":
      return [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: item.context } }];
    case "assistant":
      return [
        ...(item.reasoning.trim() === "" ? [] : [{ sessionUpdate: "agent_thought_chunk" as const, messageId: `${item.message_id}/thinking`, content: { type: "text" as const, text: item.reasoning } }]),
        ...(item.text.trim() === "" ? [] : [{ sessionUpdate: "agent_message_chunk" as const, messageId: item.message_id, content: { type: "text" as const, text: item.text } }]),
      ];
    case "tool": {
      const { card } = item;
      const said = conversationMessage(card.name, card.input);
      if (said !== undefined) return said === "" ? [] : [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: said } }];
      // A call the record has no end for: its run was cut short (a crash, a kill).
      const ended = card.content !== undefined;
      return [{ ...toolCallStart(card), status: ended ? acpStatus(card.status) : "failed", content: ended ? endContent(card, cwd) : [textContent("(no result was recorded)")] }];
    }
    default:
      return [];
  }
}
