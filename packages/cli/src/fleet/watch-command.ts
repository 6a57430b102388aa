import type { Io } from "@cairn/host/io";
import type { AgentEvent } from "@cairn/core";
import { readEvents } from "@cairn/host/fleet/event-stream";
import { findJob } from "@cairn/host/fleet/job-view";
import { fleetNotice } from "@cairn/host/fleet/fleet-notice";
import { openQueue } from "@cairn/host/fleet/open-queue";
import { printable, printableJson } from "./printable.js";
import { WatchLines } from "./watch-lines.js";

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
    const task = new WatchLines();
    let from = "0-0";
    let outcome: string | undefined;
    for (;;) {
      const batch = await readEvents(reader, job.id!, from, 1000);
      for (const { id: entry, event } of batch) {
        from = entry;
        if (json) io.stdout(`${printableJson(event)}\n`);
        else if (event.type === "fleet") {
          // Each attempt runs the task again from its start.
          if (event.subtype === "started") task.restart();
          const line = fleetNotice(event);
          if (line !== undefined) io.stdout(`${printable(line)}\n`);
        } else for (const line of task.lines(event as AgentEvent)) io.stdout(`${line}\n`);
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
