import type { AgentEvent } from "@cairn/core";
import type { WebEvent } from "./web-event.js";

/** One line of the server's stream: an event of one task, numbered for replay. */
export type LoggedEvent = { id: number; task_id: string; event: AgentEvent | WebEvent };

type Listener = (entry: LoggedEvent) => void;

/**
 * Every event the server's tasks produced, numbered. A page that reconnects says the last number
 * it saw (SSE Last-Event-ID) and gets the rest, so a reload or a dropped connection loses nothing
 * and two tabs replay the same sequence. Text deltas of a finished message are dropped once its
 * complete `assistant` event is in the log (the page rebuilds the text from it), which keeps
 * memory proportional to what the tasks said, not to how finely it streamed.
 */
export class EventLog {
  private entries: LoggedEvent[] = [];
  private next = 1;
  private listeners = new Set<Listener>();

  append(task_id: string, event: AgentEvent | WebEvent): LoggedEvent {
    const entry = { id: this.next++, task_id, event };
    if (event.type === "assistant") this.dropDeltas(task_id, event.message.id);
    this.entries.push(entry);
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  /** Entries after `lastId` (all of them for 0). */
  since(lastId: number): LoggedEvent[] {
    if (lastId <= 0) return [...this.entries];
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.id <= lastId) lo = mid + 1;
      else hi = mid;
    }
    return this.entries.slice(lo);
  }

  forTask(task_id: string): LoggedEvent[] {
    return this.entries.filter((e) => e.task_id === task_id);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.entries.length;
  }

  private dropDeltas(task_id: string, message_id: string): void {
    this.entries = this.entries.filter(
      (e) => !(e.task_id === task_id && (e.event.type === "text_delta" || e.event.type === "reasoning_delta") && e.event.message_id === message_id),
    );
  }
}
