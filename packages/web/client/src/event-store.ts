import { accessToken } from "./access-token.ts";
import { openEventStream } from "./event-stream.ts";
import { applyEntry, type StreamEntry, type TaskState } from "./task-state.ts";

export type Connection = "connecting" | "live" | "reconnecting" | "unauthorized";

/**
 * The page's copy of every task's state, fed by the server's event stream. The stream resends
 * Last-Event-ID when it reconnects, so the server replays exactly what was missed; a reload
 * starts from nothing and gets everything. Renders are batched to one per animation frame so a
 * fast stream costs one render per frame, not one per token.
 */
export class EventStore {
  readonly tasks = new Map<string, TaskState>();
  /** Task ids in the order they first appeared. */
  readonly order: string[] = [];
  connection: Connection = "connecting";
  version = 0;
  /** Counts deletions, so the history reloads. */
  deletions = 0;
  eventsApplied = 0;
  /** The last hand-off seen (a task's work went on in a new task), counted so the page can follow each once. */
  handoff = { from: "", to: "", count: 0 };
  private listeners = new Set<() => void>();
  private scheduled = false;
  private lastRender = 0;
  private closeStream: (() => void) | undefined;

  connect(): void {
    // Opened without the printed link (and not earlier in this tab): nothing to ask the server with.
    if (!accessToken()) return this.setConnection("unauthorized");
    this.closeStream = openEventStream("/api/events", {
      onOpen: () => this.setConnection("live"),
      onMessage: (data) => {
        const entry = JSON.parse(data) as StreamEntry;
        if (entry.event.type === "handoff" && entry.event.from_task_id === entry.task_id) this.handoff = { from: entry.task_id, to: entry.event.task_id, count: this.handoff.count + 1 };
        if (entry.event.type === "web_deleted") {
          this.tasks.delete(entry.task_id);
          const at = this.order.indexOf(entry.task_id);
          if (at >= 0) this.order.splice(at, 1);
        } else {
          if (!this.tasks.has(entry.task_id)) this.order.push(entry.task_id);
          applyEntry(this.tasks, entry);
        }
        this.deletions += entry.event.type === "web_deleted" ? 1 : 0;
        this.eventsApplied += 1;
        this.changed();
      },
      onUnauthorized: () => this.setConnection("unauthorized"),
      onError: () => this.setConnection("reconnecting"),
    });
  }

  close(): void {
    this.closeStream?.();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  private setConnection(connection: Connection): void {
    if (this.connection === connection) return;
    this.connection = connection;
    this.changed();
  }

  private changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const render = () => {
      if (!this.scheduled) return;
      this.scheduled = false;
      this.lastRender = performance.now();
      this.version += 1;
      for (const listener of this.listeners) listener();
    };
    // At most one render per 33 ms (30 a second, as the terminal UI): a streaming reply still reads
    // as fluid, and the page keeps most of each frame free for scrolling and typing.
    const wait = Math.max(0, this.lastRender + 33 - performance.now());
    setTimeout(() => requestAnimationFrame(render), wait);
    // A tab in the background gets no animation frames; the timer keeps it current (browsers slow it there).
    setTimeout(render, wait + 100);
  }

}
