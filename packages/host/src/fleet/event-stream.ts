import type { Redis } from "ioredis";
import { fleetKeys, retentionSeconds } from "./fleet-keys.js";

/** Events of one job, from any attempt, in order: the run's own events and the fleet's (type "fleet"). */
export type StreamedEvent = Record<string, unknown> & { type: string };

/** Streaming deltas are many and small; watch shows the complete messages and calls instead. */
const notForwarded = new Set(["text_delta", "reasoning_delta", "tool_call_delta"]);

/**
 * Appends a job's events to its Redis stream without waiting on each (commands queue while Redis
 * is briefly away and are sent when it is back); `flush` waits for them all.
 */
export function eventWriter(redis: Redis, jobId: string) {
  const key = fleetKeys.events(jobId);
  let pending: Promise<unknown>[] = [];
  return {
    append(event: StreamedEvent): void {
      if (notForwarded.has(event.type)) return;
      pending.push(redis.xadd(key, "MAXLEN", "~", "10000", "*", "e", JSON.stringify(event)).catch(() => undefined));
    },
    async flush(): Promise<void> {
      const waiting = pending;
      pending = [];
      await Promise.all(waiting);
      await redis.expire(key, retentionSeconds).catch(() => undefined);
    },
  };
}

/** Reads a job's events after `from` (a stream id; "0-0" for all), waiting up to `blockMs` for new ones. */
export async function readEvents(redis: Redis, jobId: string, from: string, blockMs: number): Promise<Array<{ id: string; event: StreamedEvent }>> {
  const reply = (await redis.xread("COUNT", 500, "BLOCK", blockMs, "STREAMS", fleetKeys.events(jobId), from)) as Array<[string, Array<[string, string[]]>]> | null;
  const entries = reply?.[0]?.[1] ?? [];
  const events: Array<{ id: string; event: StreamedEvent }> = [];
  for (const [id, fields] of entries) {
    const json = fields[fields.indexOf("e") + 1];
    if (json === undefined) continue;
    try {
      events.push({ id, event: JSON.parse(json) as StreamedEvent });
    } catch {
      // an entry someone else wrote; skip it
    }
  }
  return events;
}
