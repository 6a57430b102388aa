import type { Checkpoints, RestoreOutcome, RestorePreview } from "./checkpoints.js";
import { beforeRestoreLabel, restoredToLabel } from "./steps.js";

/** A task's record of one checkpoint (the shape storage keeps). */
export type TaskCheckpoint = { hash: string; messageIndex: number; label: string; createdAt: string };

export type TaskRestoreRequest = {
  checkpoints: Checkpoints;
  /** The task's checkpoints, oldest first, as listed to the person (numbered from 1). */
  records: readonly TaskCheckpoint[];
  /** The one to go back to. */
  target: TaskCheckpoint;
  /** Files no step of Cairn's changed since the target: kept as they are (the default) or restored too. */
  untouched?: "keep" | "restore";
  /** The conversation's length now, and after the restore when it is cut back too. */
  messageIndex: number;
  messageIndexAfter?: number;
  /** Appends a record to the task's list (the list the numbers refer to). */
  record(checkpoint: TaskCheckpoint): void;
};

export type TaskRestoreOutcome = RestoreOutcome & {
  /** The number of the "before restore" checkpoint in the task's list: restoring it undoes this restore. */
  beforeNumber: number;
};

/** The checkpoints of the task after `target`, for telling Cairn's files from the person's. */
export function laterSteps(records: readonly TaskCheckpoint[], target: TaskCheckpoint): TaskCheckpoint[] {
  return records.slice(records.indexOf(target) + 1);
}

/** What restoring the task's files to `target` would change; untouched files are listed, to ask or warn before. */
export function previewTaskRestore(checkpoints: Checkpoints, records: readonly TaskCheckpoint[], target: TaskCheckpoint): Promise<RestorePreview> {
  return checkpoints.previewRestore(target.hash, { laterSteps: laterSteps(records, target) });
}

/**
 * Restores a task's files to one of its checkpoints and records the two checkpoints the restore
 * makes in the task's list: "before restore" (the way back) and "restored to checkpoint N". No
 * record is ever dropped, so every checkpoint stays reachable.
 */
export async function restoreTaskFiles(request: TaskRestoreRequest): Promise<TaskRestoreOutcome> {
  const { checkpoints, records, target } = request;
  const number = records.indexOf(target) + 1;
  const outcome = await checkpoints.restore(target.hash, {
    laterSteps: laterSteps(records, target),
    untouched: request.untouched ?? "keep",
    afterLabel: restoredToLabel(`checkpoint ${number}`),
  });
  const beforeNumber = records.length + 1;
  request.record({ hash: outcome.before.hash, messageIndex: request.messageIndex, label: beforeRestoreLabel, createdAt: new Date().toISOString() });
  if (outcome.after) {
    request.record({
      hash: outcome.after.hash,
      messageIndex: request.messageIndexAfter ?? request.messageIndex,
      label: restoredToLabel(`checkpoint ${number}`),
      createdAt: new Date().toISOString(),
    });
  }
  return { ...outcome, beforeNumber };
}
