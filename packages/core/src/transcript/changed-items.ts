import type { Transcript, TranscriptItem } from "./types.js";

/**
 * The items one fold step added or changed, in order, each with what it was before (undefined for
 * a new one): what a host that writes as it goes (a log, a terminal) has to say about a step.
 */
export function changedItems(before: Transcript, after: Transcript): Array<{ old: TranscriptItem | undefined; item: TranscriptItem }> {
  if (after.items === before.items) return [];
  const changed: Array<{ old: TranscriptItem | undefined; item: TranscriptItem }> = [];
  after.items.forEach((item, i) => {
    // Items keep their places, but for a message placed before its turn's cards.
    const old = before.items[i]?.key === item.key ? before.items[i] : before.items.find((b) => b.key === item.key);
    if (item !== old) changed.push({ old, item });
  });
  return changed;
}
