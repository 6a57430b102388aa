import type { CheckpointDiff, Checkpoints, TaskStore } from "@cairn/core";

export type TimelineEntry = { number: number; hash: string; label: string; created_at: string; message_index: number };
export type RestoreWhat = "files" | "conversation" | "both";
/** What a restore did, and `summary`: the same in a line for the person. */
export type RestoreDone = { checkpoint: number; summary: string; files?: { restored: number; removed: number; before_number: number; kept_untouched: string[] }; messages_kept?: number };

/** A task's store and its workspace's checkpoints (when they work here). */
type Opened = { store: TaskStore; checkpoints?: Checkpoints };

/** A task's checkpoints, oldest first, numbered as `cairn checkpoints` numbers them. */
export function timeline(task: Opened): TimelineEntry[] {
  return task.store.metadata().checkpoints.map((r, i) => ({ number: i + 1, hash: r.hash, label: r.label, created_at: r.createdAt, message_index: r.messageIndex }));
}

/** What one step changed: from the checkpoint before it to this one (the first: to nothing before it). */
export async function stepDiff(task: Opened, number: number): Promise<CheckpointDiff | string> {
  const records = task.store.metadata().checkpoints;
  const target = records[number - 1];
  if (!target) return `No checkpoint ${number} in this task (it has ${records.length}).`;
  if (!task.checkpoints) return "Checkpoints are off for this task.";
  const before = records[number - 2];
  if (!before) return { files: [], patch: "" };
  return task.checkpoints.diff(before.hash, target.hash);
}
