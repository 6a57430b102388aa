import type { AgentEvent } from "@cairn/core";
import type { WebEvent } from "./web-event.js";

/** One line of the server's stream: an event of one task, numbered for replay. */
export type LoggedEvent = { id: number; task_id: string; event: AgentEvent | WebEvent };

type Listener = (entry: LoggedEvent) => void;
type Delta = Extract<AgentEvent, { type: "text_delta" | "reasoning_delta" }>;

/**
 * Every event the server's tasks produced, numbered. A page that reconnects says the last number
 * it saw (SSE Last-Event-ID) and gets the rest, so a reload or a dropped connection loses nothing
 * and two tabs replay the same sequence.
 *
 * Once a message's complete `assistant` event is logged, its many small deltas are folded into
 * one delta per kind, kept at the first one's place and number: a replay still shows the text
 * before the tool calls it preceded, and memory grows with what the tasks said, not with how
 * finely it streamed.
 */
export class EventLog {
  private entries: LoggedEvent[] = [];
  private next = 1;
  private listeners = new Set<Listener>();
  /** Where each streaming message's first delta sits in `entries` (entries before it never move). */
  private firstDelta = new Map<string, number>();

  append(task_id: string, event: AgentEvent | WebEvent): LoggedEvent {
    const entry = { id: this.next++, task_id, event };
    if (event.type === "assistant") this.foldDeltas(task_id, event.message.id);
    if ((event.type === "text_delta" || event.type === "reasoning_delta") && !this.firstDelta.has(`${task_id}\n${event.message_id}`)) {
      this.firstDelta.set(`${task_id}\n${event.message_id}`, this.entries.length);
    }
    this.entries.push(entry);
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  /** Entries after `lastId` (all of them for 0). */
  since(lastId: number): LoggedEvent[] {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.id <= lastId) lo = mid + 1;
      else hi = mid;
    }
    return this.entries.slice(lo);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.entries.length;
  }

  private foldDeltas(task_id: string, message_id: string): void {
    const key = `${task_id}\n${message_id}`;
    const start = this.firstDelta.get(key);
    if (start === undefined) return;
    this.firstDelta.delete(key);
    const kept: LoggedEvent[] = [];
    const merged = new Map<string, LoggedEvent & { event: Delta }>();
    for (const entry of this.entries.slice(start)) {
      const e = entry.event;
      if (entry.task_id !== task_id || (e.type !== "text_delta" && e.type !== "reasoning_delta") || e.message_id !== message_id) {
        kept.push(entry);
        continue;
      }
      const first = merged.get(e.type);
      if (first) first.event = { ...first.event, text: first.event.text + e.text };
      else {
        const copy = { ...entry, event: { ...e } };
        merged.set(e.type, copy);
        kept.push(copy);
      }
    }
    this.entries.splice(start, this.entries.length - start, ...kept);
    // Other messages still streaming after `start` may have moved: find their first deltas again.
    for (const [other, index] of this.firstDelta) {
      if (index < start) continue;
      const [otherTask, otherMessage] = other.split("\n");
      const found = this.entries.findIndex((x, i) => i >= start && x.task_id === otherTask && (x.event.type === "text_delta" || x.event.type === "reasoning_delta") && x.event.message_id === otherMessage);
      if (found === -1) this.firstDelta.delete(other);
      else this.firstDelta.set(other, found);
    }
  }
}
