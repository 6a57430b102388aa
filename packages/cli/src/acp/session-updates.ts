import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { AgentEvent } from "@cairn/core";
import { cardOf, conversationCalls, describeEstimate, foldEvent, initialTranscript } from "@cairn/core/transcript";
import { HeldProse } from "./held-prose.js";
import { acpStatus, conversationMessage, diffContent, endContent, previewContent, textContent, toolCallStart } from "./tool-card.js";

/**
 * Turns the AgentEvent stream of one session into ACP `session/update`s as it happens. Each
 * call's card is core's fold of its events (the transcript), so a card shows here what it shows
 * in every host and in a replay; what a reply streams is held until it can no longer be
 * discarded (HeldProse).
 */
export class SessionUpdates {
  private transcript = initialTranscript();
  private readonly prose = new HeldProse();

  /**
   * `cwd`: the workspace, against which core's workspace-relative preview paths are made absolute
   * (ACP wants absolute paths). `notices`: the editor shows notices (else they stay in its log).
   */
  constructor(
    private readonly cwd: string,
    private readonly notices = false,
  ) {}

  map(event: AgentEvent): SessionUpdate[] {
    this.transcript = foldEvent(this.transcript, event);
    // What a reply streamed is sent once it is kept: before its first call's card, at the next piece of it, at its end.
    const kept = event.type === "tool_call" || event.type === "message_start" || event.type === "assistant" || event.type === "result" ? this.prose.release() : [];
    return [...kept, ...this.updatesOf(event)];
  }

  /** The prose still held (the turn ended without a complete message: cancelled, failed). */
  release(): SessionUpdate[] {
    return this.prose.release();
  }

  private updatesOf(event: AgentEvent): SessionUpdate[] {
    switch (event.type) {
      case "text_delta":
        this.prose.hold("agent_message_chunk", event.message_id, event.text);
        return [];
      case "reasoning_delta":
        this.prose.hold("agent_thought_chunk", event.message_id, event.text);
        return [];
      case "stream_discarded":
        this.prose.discard(event.message_id);
        return [];
      case "handoff":
        // The new task's first message, as the thread will show it when loaded again.
        return [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: event.context } }];
      case "task_progress":
        return [planUpdate(event.items)];
      case "system":
        if (event.subtype === "mode") return [{ sessionUpdate: "current_mode_update", currentModeId: event.mode }];
        if (event.subtype === "notice" && this.notices) return [{ sessionUpdate: "notice", severity: event.level, title: event.message }];
        return [];
      case "tool_call": {
        const message = conversationMessage(event.name, event.input);
        if (message !== undefined) return message === "" ? [] : [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: message } }];
        const card = cardOf(this.transcript, event.tool_use_id);
        return card ? [toolCallStart(card)] : [];
      }
      case "tool_output": {
        const card = cardOf(this.transcript, event.tool_use_id);
        return card ? [{ sessionUpdate: "tool_call_update", toolCallId: card.tool_use_id, status: "in_progress", content: [textContent(card.output)] }] : [];
      }
      case "tool_call_update": {
        const card = cardOf(this.transcript, event.tool_use_id);
        if (!card || conversationCalls.has(event.name)) return [];
        if (event.status === "awaiting_approval") {
          return [{ sessionUpdate: "tool_call_update", toolCallId: card.tool_use_id, status: "pending", content: previewContent(event.approval.preview, event.approval.summary, this.cwd) }];
        }
        if (event.status === "running") {
          // An edit run without asking: its diff shows while it runs, as an approved one's did while asked.
          const content = event.preview?.type === "diff" ? { content: [diffContent(event.preview, this.cwd)] } : {};
          return [{ sessionUpdate: "tool_call_update", toolCallId: card.tool_use_id, status: "in_progress", ...content }];
        }
        return [{ sessionUpdate: "tool_call_update", toolCallId: card.tool_use_id, status: acpStatus(card.status), content: endContent(card, this.cwd) }];
      }
      case "result":
        // A plan waiting for the editor's next prompt: what carrying it out should cost, under the plan.
        return event.plan_estimate ? [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n\n${describeEstimate(event.plan_estimate)}\n` } }] : [];
      default:
        return [];
    }
  }
}

/** The focus chain's checklist as the editor's plan: the first open item is the one in progress. */
export function planUpdate(items: ReadonlyArray<{ text: string; done: boolean }>): SessionUpdate {
  const current = items.findIndex((item) => !item.done);
  return {
    sessionUpdate: "plan",
    entries: items.map((item, i) => ({ content: item.text, priority: "medium" as const, status: item.done ? ("completed" as const) : i === current ? ("in_progress" as const) : ("pending" as const) })),
  };
}
