import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventLog, LoggedEvent } from "./event-log.js";

/**
 * One event as SSE. An event that cannot be serialised (a shape no limit upstream caught) goes out
 * as a notice in its place: it stays in the log, and a throw here would end every page's stream,
 * now and at every reload, until the server restarts.
 */
function frame(entry: LoggedEvent): string {
  let data: string;
  try {
    data = JSON.stringify({ task_id: entry.task_id, event: entry.event });
  } catch (error) {
    const message = `Cairn could not send a ${entry.event.type} event to this page (${(error as Error).message}); the task goes on.`;
    data = JSON.stringify({ task_id: entry.task_id, event: { type: "system", subtype: "notice", level: "warning", message } });
  }
  return `id: ${entry.id}\ndata: ${data}\n\n`;
}

/**
 * Server-sent events: what the page missed since `lastId` (all of it on a first load), then every
 * new event as it is logged. EventSource reconnects by itself and sends Last-Event-ID, so nothing
 * is lost between the two. A comment every 15 s keeps proxies and idle timers from closing it.
 */
export function streamEvents(req: IncomingMessage, res: ServerResponse, log: EventLog, lastId: number, headers: Record<string, string>): void {
  res.writeHead(200, { ...headers, "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", Connection: "keep-alive" });
  req.socket.setNoDelay(true);
  res.write("retry: 1000\n\n");
  const backlog = log.since(lastId);
  if (backlog.length > 0) res.write(backlog.map(frame).join(""));
  let seen = backlog.at(-1)?.id ?? lastId;
  // Events that come close together leave in one write: a reply streaming 200 tokens a second
  // costs the page a dozen network reads a second instead of 200, for at most 16 ms of delay.
  let pending = "";
  let flush: NodeJS.Timeout | undefined;
  const unsubscribe = log.subscribe((entry) => {
    if (entry.id <= seen) return;
    seen = entry.id;
    pending += frame(entry);
    flush ??= setTimeout(() => {
      flush = undefined;
      res.write(pending);
      pending = "";
    }, 16);
  });
  const heartbeat = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
  res.on("close", () => {
    clearInterval(heartbeat);
    clearTimeout(flush);
    unsubscribe();
  });
}
