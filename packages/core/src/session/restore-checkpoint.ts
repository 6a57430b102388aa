import { restoreTaskFiles, type Checkpoints, type TaskRestoreOutcome } from "../checkpoints/index.js";
import type { AgentEvent } from "../events/index.js";
import type { Message } from "../model/types.js";
import type { TaskStore } from "../storage/task-store.js";
import { SessionError } from "./session-error.js";

/** What a restore did: the checkpoint's number, the files' outcome (when files were restored), the messages kept (when the conversation was cut). */
export type CheckpointRestore = { checkpoint: number; hash: string; files?: TaskRestoreOutcome; messagesKept?: number };

export type CheckpointRestoreRequest = {
  store: TaskStore;
  /** The task's checkpoint store; undefined when checkpoints are off (only the conversation can go back). */
  checkpoints: Checkpoints | undefined;
  /** The checkpoint to go back to: its number in the task's list, from 1. */
  checkpoint: number;
  what: "files" | "conversation" | "both";
  /** Files Cairn never touched since the checkpoint: kept as they are (the default) or restored too. */
  untouched?: "keep" | "restore";
  /** The conversation as it is now. */
  messages: readonly Message[];
  /** Cuts the conversation back: a live task's own (which writes the store), or the stored one. */
  cut(kept: Message[]): void;
  /** Records the `restored` event in the task's journal: a live task's event path, or the store's. */
  publish(event: AgentEvent): void;
};

/**
 * Takes a task back to one of its checkpoints: its files (the files as they are are saved first,
 * as the way back), its conversation (cut to the checkpoint's message_index; the task is left
 * stopped, so its next message says so), or both. Every host's restore is this one, and each
 * ends with a `restored` event in the task's journal, after a `checkpoint` event for each of the two
 * checkpoints the restore adds to the task's list, so whoever opens the task sees it and numbers
 * the checkpoints as the list does.
 */
export async function restoreCheckpoint(r: CheckpointRestoreRequest): Promise<CheckpointRestore> {
  const records = r.store.metadata().checkpoints;
  const number = r.checkpoint;
  const target = records[number - 1];
  if (!target) throw new SessionError(`No checkpoint ${number} in task ${r.store.metadata().id}: it has ${records.length}, numbered from 1.`);
  const cut = r.what !== "files";
  if (cut && target.messageIndex > r.messages.length) {
    throw new SessionError(`The conversation is already shorter than at checkpoint ${number} (${r.messages.length} of ${target.messageIndex} messages): restore only its files.`);
  }
  const done: CheckpointRestore = { checkpoint: number, hash: target.hash };
  if (r.what !== "conversation") {
    if (!r.checkpoints) throw new SessionError("Checkpoints are off for this task: there are no files to restore.");
    done.files = await restoreTaskFiles({
      checkpoints: r.checkpoints,
      records,
      target,
      untouched: r.untouched ?? "keep",
      messageIndex: r.messages.length,
      messageIndexAfter: cut ? target.messageIndex : r.messages.length,
      // Published too, so whoever folds the task's events numbers its checkpoints as its list does
      // (with no files counted: a restore marks no step; its `restored` event says what it did).
      record: (record) => {
        r.store.checkpoint(record);
        r.publish({ type: "checkpoint", hash: record.hash, message_index: record.messageIndex, label: record.label, changed_files: 0 });
      },
    });
  }
  if (cut) {
    r.cut(r.messages.slice(0, target.messageIndex));
    // Every checkpoint stays listed: the later ones are still the way forward for the files.
    r.store.update({ status: "aborted" });
    done.messagesKept = target.messageIndex;
  }
  r.publish({ type: "restored", hash: target.hash, message_index: cut ? target.messageIndex : r.messages.length, what: r.what, checkpoint: number });
  return done;
}
