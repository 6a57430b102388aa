import type { IncomingMessage, ServerResponse } from "node:http";
import { readEvents, type StreamedEvent } from "@cairn/host/fleet/event-stream";
import { fleetNotice } from "@cairn/host/fleet/fleet-notice";
import { cancelJob, retryJob } from "@cairn/host/fleet/job-control";
import { findJob, listedStates, viewOf, type JobView } from "@cairn/host/fleet/job-view";
import { openQueue } from "@cairn/host/fleet/open-queue";
import { givenRedisUrl, shownRedisUrl, withoutPassword } from "@cairn/host/fleet/redis-connection";
import { UsageError } from "@cairn/host/usage-error";
import { branchDiff, type FleetDiff } from "./fleet-diff.js";

type Opened = Awaited<ReturnType<typeof openQueue>>;
export type Answer<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

/** Jobs the page lists: the newest, as `cairn fleet status` orders them. */
const listLimit = 200;
/** After Redis could not be reached, the next try waits this long (the page asks every second). */
const retryAfterMs = 3000;

/**
 * The fleet as `cairn web` shows it, read through the fleet's own modules (the queue, its job views,
 * cancel and retry, the events' Redis streams), so the page and `cairn fleet` never disagree.
 * A lost connection is opened again on the next request; until then each answer says Redis is away.
 */
export class FleetBoard {
  private opened: Opened | undefined;
  private opening: Promise<Opened> | undefined;
  private failure: { at: number; message: string } | undefined;
  private readers = new Set<{ disconnect(): void }>();

  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly diffCache: string,
  ) {}

  /** The Redis URL as the terminal and the page may show it: never with its password. */
  get url(): string {
    return shownRedisUrl(givenRedisUrl(this.env));
  }

  /** A message for the terminal or the page, with the password taken out wherever a library quoted it. */
  private said(message: string): string {
    return withoutPassword(message, givenRedisUrl(this.env));
  }

  /** Connects (or says in one line why it cannot): called once at start, for the terminal's notice. */
  async probe(): Promise<string | undefined> {
    const opened = await this.connection();
    return opened.ok ? undefined : opened.message;
  }

  private async connection(): Promise<Answer<Opened>> {
    if (this.opened && this.opened.redis.status === "ready") return { ok: true, value: this.opened };
    if (this.opened) {
      const stale = this.opened;
      this.opened = undefined;
      void stale.close().catch(() => {});
    }
    if (this.failure && Date.now() - this.failure.at < retryAfterMs) return { ok: false, status: 503, message: this.failure.message };
    this.opening ??= openQueue(this.env);
    try {
      this.opened = await this.opening;
      this.opened.redis.on("error", () => {}); // a lost connection is noticed by its status on the next request
      this.failure = undefined;
      return { ok: true, value: this.opened };
    } catch (error) {
      // openQueue checks the URL first (a Redis on another machine without a password is refused) and says why in one line.
      this.failure = { at: Date.now(), message: this.said((error as Error).message) };
      return { ok: false, status: 503, message: this.failure.message };
    } finally {
      this.opening = undefined;
    }
  }

  private async use<T>(work: (opened: Opened) => Promise<T>): Promise<Answer<T>> {
    const opened = await this.connection();
    if (!opened.ok) return opened;
    try {
      return { ok: true, value: await work(opened.value) };
    } catch (error) {
      if (error instanceof UsageError) return { ok: false, status: 409, message: this.said(error.message) };
      return { ok: false, status: 503, message: this.said(`Redis at ${this.url} did not answer: ${(error as Error).message.split("\n")[0]}`) };
    }
  }

  jobs(): Promise<Answer<JobView[]>> {
    return this.use(async ({ queue, redis }) => {
      const jobs = await queue.getJobs([...listedStates], 0, listLimit - 1);
      jobs.sort((a, b) => b.timestamp - a.timestamp);
      return Promise.all(jobs.slice(0, listLimit).map((job) => viewOf(job, redis)));
    });
  }

  job(id: string): Promise<Answer<JobView>> {
    return this.use(async ({ queue, redis }) => viewOf(await findJob(queue, id, "a job id"), redis));
  }

  cancel(id: string): Promise<Answer<string>> {
    return this.use(({ queue, redis }) => cancelJob(queue, redis, id));
  }

  retry(id: string): Promise<Answer<string>> {
    return this.use(({ queue, redis }) => retryJob(queue, redis, id));
  }

  async diff(id: string): Promise<Answer<FleetDiff | null>> {
    const view = await this.job(id);
    if (!view.ok) return view;
    const result = view.value.result;
    if (!result?.branch) return { ok: true, value: null };
    const diff = await branchDiff(view.value.repo, result.branch, this.diffCache);
    return typeof diff === "string" ? { ok: false, status: 502, message: diff } : { ok: true, value: diff };
  }

  /**
   * A job's events as server-sent events, from its Redis stream: everything after `from` (a stream
   * id, which EventSource sends back as Last-Event-ID), then each new one as its worker writes it.
   * The run's own events pass as they are, for the page to fold with the reducer of a local task;
   * the fleet's (attempt started, lost, ended) become notices worded as `cairn fleet watch` words them.
   */
  async streamEvents(req: IncomingMessage, res: ServerResponse, id: string, from: string, headers: Record<string, string>): Promise<Answer<null>> {
    const opened = await this.connection();
    if (!opened.ok) return opened;
    // A blocking read needs a connection of its own.
    const reader = opened.value.redis.duplicate();
    reader.on("error", () => {});
    try {
      await reader.connect(); // the fleet's connections connect when asked, and queue nothing while away
    } catch (error) {
      reader.disconnect();
      return { ok: false, status: 503, message: this.said(`Redis at ${this.url} did not answer: ${(error as Error).message.split("\n")[0]}`) };
    }
    this.readers.add(reader);
    let open = true;
    const stop = () => {
      open = false;
      this.readers.delete(reader);
      reader.disconnect();
    };
    res.writeHead(200, { ...headers, "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", Connection: "keep-alive" });
    res.write("retry: 1000\n\n");
    res.on("close", stop);
    const taskId = `fleet:${id}`;
    void (async () => {
      let after = /^\d+-\d+$/.test(from) ? from : "0-0";
      while (open) {
        let batch: Awaited<ReturnType<typeof readEvents>>;
        try {
          batch = await readEvents(reader, id, after, 1000);
        } catch {
          if (!open) return;
          res.end(); // EventSource comes back with Last-Event-ID, on a fresh connection
          return;
        }
        let out = "";
        for (const { id: entry, event } of batch) {
          after = entry;
          const shown = forPage(event);
          if (shown) out += `id: ${entry}\ndata: ${JSON.stringify({ task_id: taskId, event: shown })}\n\n`;
        }
        if (out && open) res.write(out);
        else if (open) res.write(": keep-alive\n\n");
      }
    })();
    return { ok: true, value: null };
  }

  async close(): Promise<void> {
    for (const reader of this.readers) reader.disconnect();
    this.readers.clear();
    await this.opened?.close().catch(() => {});
    this.opened = undefined;
  }
}

function forPage(event: StreamedEvent): StreamedEvent | undefined {
  if (event.type !== "fleet") return event;
  const line = fleetNotice(event);
  if (line === undefined) return undefined;
  const trouble = event.subtype === "lock_lost" || (event.subtype === "end" && event.state !== "completed");
  return { type: "system", subtype: "notice", level: trouble ? "warning" : "info", message: line.replace(/^[─\s]+/, "") };
}
