import type { StreamedEvent } from "./event-stream.js";

/**
 * The line a person reads for one of the fleet's own events (an attempt started, a job lost, a
 * provider's pause, the end), as `cairn fleet watch` prints it and the web page's Fleet tab shows
 * it; nothing for other events. Raw text from the queue: a terminal makes it printable first.
 */
export function fleetNotice(e: StreamedEvent): string | undefined {
  if (e.type !== "fleet") return undefined;
  if (e.subtype === "started") return `── attempt ${e.attempt} on ${e.worker}`;
  if (e.subtype === "lock_lost") return `── ${e.worker} lost the job (it stopped answering); another worker takes it up`;
  if (e.subtype === "provider_paused") return `   waited ${Math.round(Number(e.waited_ms) / 1000)}s: ${e.provider} is rate limited for every worker`;
  if (e.subtype === "end") {
    const detail = e.state === "completed" ? `${e.outcome}${e.branch ? `, ${e.branch}` : ""}` : e.reason ? String(e.reason) : "";
    return `── ${e.state}${detail ? `: ${detail}` : ""}`;
  }
  return undefined;
}
