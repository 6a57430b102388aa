import type { Message } from "./types.js";

/**
 * Keeps tool-call ids unique across a conversation. Some providers number calls per response
 * (Kimi K2's `functions.read_file:0` on vLLM, `call_0` from several OpenAI-compatible servers), so
 * the second turn's call has the first turn's id: two calls would share one id in `--json`, and the
 * next request would repeat a `tool_use` id, which Anthropic's API rejects with a 400. A call whose
 * id the conversation already holds (or this reply already used) gets the id with a suffix, from its
 * first event on; the renamed id is what is stored and sent back, so the wire stays unique too.
 */
export class CallIds {
  private readonly taken = new Set<string>();
  /** The provider's id → the id used for the call now streaming under it. */
  private readonly open = new Map<string, string>();

  constructor(messages: readonly Message[]) {
    for (const message of messages) {
      for (const part of message.content) {
        if (part.type === "tool-call") this.taken.add(part.id);
        else if (part.type === "tool-result") this.taken.add(part.toolCallId);
      }
    }
  }

  /** A call starts streaming under the provider's `id`. */
  start(id: string): string {
    const unique = this.fresh(id);
    this.open.set(id, unique);
    return unique;
  }

  /** More of the call streaming under `id`. */
  delta(id: string): string {
    return this.open.get(id) ?? id;
  }

  /** The call under `id` is complete; a later call may reuse the provider's id and is renamed. */
  complete(id: string): string {
    const unique = this.open.get(id) ?? this.fresh(id);
    this.open.delete(id);
    return unique;
  }

  private fresh(id: string): string {
    let unique = id;
    for (let n = 2; this.taken.has(unique); n++) unique = `${id}_${n}`;
    this.taken.add(unique);
    return unique;
  }
}
