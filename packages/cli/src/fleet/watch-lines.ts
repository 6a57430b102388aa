import { changedItems, foldEvent, initialTranscript, type AgentEvent, type TranscriptItem, type Transcript } from "@cairn/core";
import { printable } from "./printable.js";

/**
 * What `cairn fleet watch` prints of a job's task: the lines a person reads as core's fold of its
 * events changes (a complete reply, a call, a call that failed or was denied, a retry, an error,
 * the result). Whatever they say came through the queue, from the model or whoever wrote to
 * Redis: each line is printable text by the time it is returned (no escape sequence reaches the
 * terminal).
 */
export class WatchLines {
  private transcript: Transcript = initialTranscript();

  /** A new attempt runs the job's task again from its start. */
  restart(): void {
    this.transcript = initialTranscript();
  }

  lines(event: AgentEvent): string[] {
    const before = this.transcript;
    let after: Transcript;
    try {
      after = foldEvent(before, event);
    } catch {
      // The queue is written by workers, but read as untrusted: a malformed event is named, not fatal.
      return [printable(`   (an event watch cannot read: ${String(event.type).slice(0, 40)})`)];
    }
    this.transcript = after;
    return changedItems(before, after).flatMap(({ old, item }) => {
      const line = describe(old, item);
      return line === undefined ? [] : [printable(line)];
    });
  }
}

function describe(old: TranscriptItem | undefined, item: TranscriptItem): string | undefined {
  switch (item.kind) {
    case "assistant":
      // Watch shows complete messages (the queue carries no deltas), and only their prose.
      if (!item.done || (old?.kind === "assistant" && old.done)) return undefined;
      return item.text.trim() === "" ? undefined : item.text.trim();
    case "tool": {
      const card = item.card;
      if (!old) return `→ ${card.summary || card.name}`;
      const was = old.kind === "tool" ? old.card.status : undefined;
      return (card.status === "failed" || card.status === "denied") && was !== card.status ? `  ${card.name} ${card.status}` : undefined;
    }
    case "notice": {
      if (old) return undefined;
      const e = item.event;
      if (e.type === "error") return `error: ${e.message}`;
      if (e.subtype === "api_retry") return `   model request failed (${e.error_status ?? e.error}); retry ${e.attempt} in ${Math.round(e.retry_delay_ms / 100) / 10}s`;
      return undefined;
    }
    case "result":
      return old ? undefined : `result (${item.subtype}): ${item.event.result}`;
    default:
      return undefined;
  }
}
