import type { Io } from "@cairn/host/io";
import { readEvents, type StreamedEvent } from "@cairn/host/fleet/event-stream";
import { findJob } from "@cairn/host/fleet/job-view";
import { fleetNotice } from "@cairn/host/fleet/fleet-notice";
import { openQueue } from "@cairn/host/fleet/open-queue";
import { printable, printableJson } from "./printable.js";

/**
 * One line a person reads for an event, or nothing for the ones that only matter to programs.
 * Whatever the event says came through the queue, from the model or whoever wrote to Redis: it is
 * printable text by the time it is returned (no escape sequence reaches the terminal).
 */
export function renderEvent(e: StreamedEvent): string | undefined {
  const line = describeEvent(e);
  return line === undefined ? undefined : printable(line);
}

function describeEvent(e: StreamedEvent): string | undefined {
  if (e.type === "fleet") return fleetNotice(e);
  if (e.type === "assistant") {
    const content = ((e.message as { content?: Array<{ type: string; text?: string }> })?.content ?? []).filter((c) => c.type === "text" && c.text?.trim());
    return content.length > 0 ? content.map((c) => c.text!.trim()).join("\n") : undefined;
  }
  if (e.type === "tool_call") return `→ ${e.summary ?? e.name}`;
  if (e.type === "tool_call_update" && (e.status === "failed" || e.status === "denied")) return `  ${e.name} ${e.status}`;
  if (e.type === "system" && e.subtype === "api_retry") return `   model request failed (${e.error_status ?? e.error}); retry ${e.attempt} in ${Math.round(Number(e.retry_delay_ms) / 100) / 10}s`;
  if (e.type === "error") return `error: ${e.message}`;
  if (e.type === "result") return `result (${e.subtype}): ${e.result}`;
  return undefined;
}

/**
 * `cairn fleet watch <job> [--json]`: the job's events as they happen, from whichever worker runs it,
 * from its first event on; returns when the job has ended (exit code 0 for a success).
 */
export async function watchCommand(argv: string[], io: Io): Promise<number> {
  const json = argv.includes("--json");
  const id = argv.find((a) => !a.startsWith("-"));
  const { queue, redis, close } = await openQueue(io.env);
  // A blocking read needs a connection of its own: the queue's is shared.
  const reader = redis.duplicate();
  reader.on("error", () => {});
  try {
    await reader.connect();
    const job = await findJob(queue, id, "cairn fleet watch <job> [--json]");
    let from = "0-0";
    let outcome: string | undefined;
    for (;;) {
      const batch = await readEvents(reader, job.id!, from, 1000);
      for (const { id: entry, event } of batch) {
        from = entry;
        if (json) io.stdout(`${printableJson(event)}\n`);
        else {
          const line = renderEvent(event);
          if (line !== undefined) io.stdout(`${line}\n`);
        }
        if (event.type === "fleet" && event.subtype === "end" && event.state !== "retrying") outcome = event.state === "completed" ? String(event.outcome) : String(event.state);
      }
      if (outcome !== undefined) return outcome === "success" ? 0 : 1;
      if (batch.length === 0) {
        // Ended with no end event of its own (removed, or failed before it ran): say so and stop.
        const state = await job.getState();
        if (state === "failed" || state === "unknown") {
          if (!json) io.stdout(`── ${state}${job.failedReason ? `: ${printable(job.failedReason)}` : ""}\n`);
          return 1;
        }
      }
    }
  } finally {
    reader.disconnect();
    await close();
  }
}
