import type { SessionUpdate } from "@agentclientprotocol/sdk";

type Chunk = Extract<SessionUpdate, { sessionUpdate: "agent_message_chunk" | "agent_thought_chunk" }>;

/**
 * A reply's text and thinking, held back until they can no longer be thrown away. When a stream
 * drops mid-reply, core retries it and discards what the attempt had streamed (stream_discarded).
 * ACP cannot take back a chunk the editor has shown: a chunk's messageId only groups chunks into
 * messages, and v1 has no update that replaces or removes one. So an attempt's prose waits here
 * until the attempt is kept: at its first tool call (a reply whose call is under way is never
 * retried), at the next piece of the reply (a continuation after the output limit), at the
 * complete message, or at the end of the turn (a cancelled or failed one too). Each chunk keeps
 * its message's id, thinking under an id of its own, so the editor tells the messages apart.
 */
export class HeldProse {
  private held: Chunk[] = [];

  hold(kind: Chunk["sessionUpdate"], messageId: string, text: string): void {
    const id = kind === "agent_thought_chunk" ? `${messageId}/thinking` : messageId;
    const last = this.held.at(-1);
    // One notification for a run of deltas of the same message.
    if (last?.sessionUpdate === kind && last.messageId === id && last.content.type === "text") last.content.text += text;
    else this.held.push({ sessionUpdate: kind, messageId: id, content: { type: "text", text } });
  }

  /** What `messageId` streamed and was not kept yet is thrown away (the retry streams it again). */
  discard(messageId: string): void {
    this.held = this.held.filter((chunk) => chunk.messageId !== messageId && chunk.messageId !== `${messageId}/thinking`);
  }

  /** The prose held so far, to send now: it can no longer be discarded. */
  release(): SessionUpdate[] {
    const released = this.held;
    this.held = [];
    return released;
  }
}
