import { randomUUID } from "node:crypto";
import type { Message } from "./types.js";

/**
 * Cairn names every native tool call itself. Providers' ids cannot key a task's calls: several
 * number calls per response (`call_0` from Fireworks, Azure OpenAI, OpenRouter routes and local
 * servers, Kimi K2's `functions.read_file:0` on vLLM), so every turn's call would share one id, and
 * an id renamed against the conversation would come free again once compaction or a restore drops
 * the call that held it, while the journal and the hosts still show that call's card. A random id
 * needs no record to stay unique: not across compaction, restores, resumes, the pieces of one
 * reply, or sub-agents. The provider's id stays on the call only to be sent back to the provider.
 */
export function newCallId(): string {
  return `tool_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/** One reply's calls, as the provider names them → Cairn's ids. */
export class CallIds {
  /** The provider's id → Cairn's id of the call now streaming under it. */
  private readonly open = new Map<string, string>();

  /** A call starts streaming under the provider's `id`. */
  start(id: string): string {
    const own = newCallId();
    this.open.set(id, own);
    return own;
  }

  /** More of the call streaming under `id`. */
  delta(id: string): string {
    return this.open.get(id) ?? this.start(id);
  }

  /** The call under `id` is complete; a later call under the same provider id is another call. */
  complete(id: string): string {
    const own = this.open.get(id) ?? newCallId();
    this.open.delete(id);
    return own;
  }
}

/** Anthropic's rule for a tool_use id; an id outside it is refused with a 400. */
const anthropicId = /^[a-zA-Z0-9_-]+$/;

/**
 * The id each call of the conversation goes to the provider under (keyed by Cairn's id; its results
 * follow it): the provider's own id, unless an earlier call of this request went out under it (the
 * provider reused it) or the Anthropic wire cannot take it; then Cairn's. A call without a provider
 * id (written as text, or stored before calls had one) goes under the id it has, made fit and unique.
 */
export function wireCallIds(messages: readonly Message[], anthropic: boolean): Map<string, string> {
  const wire = new Map<string, string>();
  const taken = new Set<string>();
  const usable = (id: string | undefined): id is string => id !== undefined && !taken.has(id) && (!anthropic || anthropicId.test(id));
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type !== "tool-call" || wire.has(part.id)) continue;
      const base = anthropic ? part.id.replace(/[^a-zA-Z0-9_-]/g, "_") : part.id;
      let id = usable(part.providerId) ? part.providerId : base;
      // The same every request, so the provider's prompt cache still matches the conversation's prefix.
      for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
      taken.add(id);
      wire.set(part.id, id);
    }
  }
  return wire;
}
