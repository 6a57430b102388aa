import { restoreTaskFiles, type CheckpointDiff } from "@cairn/core";
import type { WebSession } from "./task-opener.js";

export type TimelineEntry = { number: number; hash: string; label: string; created_at: string; message_index: number };
export type RestoreWhat = "files" | "conversation" | "both";
export type RestoreDone = { checkpoint: number; files?: { restored: number; removed: number; before_number: number; kept_untouched: string[] }; messages_kept?: number };

/** A task's checkpoints, oldest first, numbered as `cairn checkpoints` numbers them. */
export function timeline(session: WebSession): TimelineEntry[] {
  return session.store.metadata().checkpoints.map((r, i) => ({ number: i + 1, hash: r.hash, label: r.label, created_at: r.createdAt, message_index: r.messageIndex }));
}

/** What one step changed: from the checkpoint before it to this one (the first: to nothing before it). */
export async function stepDiff(session: WebSession, number: number): Promise<CheckpointDiff | string> {
  const records = session.store.metadata().checkpoints;
  const target = records[number - 1];
  if (!target) return `No checkpoint ${number} in this task (it has ${records.length}).`;
  if (!session.checkpoints) return "Checkpoints are off for this task.";
  const before = records[number - 2];
  if (!before) return { files: [], patch: "" };
  return session.checkpoints.diff(before.hash, target.hash);
}

/**
 * Restores files, the conversation or both to checkpoint `number`, as `cairn checkpoints restore`
 * does: a file restore first saves the files as they are (the way back), files the agent never
 * touched are kept, and no checkpoint is dropped from the list.
 */
export async function restoreCheckpoint(session: WebSession, number: number, what: RestoreWhat): Promise<RestoreDone | string> {
  const records = session.store.metadata().checkpoints;
  const target = records[number - 1];
  if (!target) return `No checkpoint ${number} in this task (it has ${records.length}).`;
  const cut = what !== "files";
  const { messages } = session.store.loadConversation();
  if (cut && target.messageIndex > messages.length) {
    return `The conversation is already shorter than at checkpoint ${number}; restore only its files.`;
  }
  const done: RestoreDone = { checkpoint: number };
  if (what !== "conversation") {
    if (!session.checkpoints) return "Checkpoints are off for this task: there are no files to restore.";
    const outcome = await restoreTaskFiles({
      checkpoints: session.checkpoints,
      records,
      target,
      untouched: "keep",
      messageIndex: messages.length,
      messageIndexAfter: cut ? target.messageIndex : messages.length,
      record: (record) => session.store.checkpoint(record),
    });
    done.files = { restored: outcome.restored, removed: outcome.removed, before_number: outcome.beforeNumber, kept_untouched: outcome.untouched.map((f) => f.path) };
  }
  if (cut) {
    session.store.replaceMessages(messages.slice(0, target.messageIndex));
    session.store.update({ status: "aborted" });
    done.messages_kept = target.messageIndex;
  }
  return done;
}
