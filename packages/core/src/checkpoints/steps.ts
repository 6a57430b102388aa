/**
 * Which checkpoints record Cairn's own work. A task's checkpoints are labelled by the runtime
 * ("turn 3: write_to_file"), by the restore ("before restore", "restored to checkpoint 2") and for
 * files that changed between steps ("changes outside the agent"). A restore undoes what Cairn did;
 * files changed only in the other checkpoints are the person's and are treated with care.
 */

export const beforeRestoreLabel = "before restore";

export function restoredToLabel(name: string): string {
  return `restored to ${name}`;
}

/** A checkpoint made after a step of Cairn's: a tool call of the task, or a restore. */
export function isCairnStep(label: string): boolean {
  return /^turn \d+: /.test(label) || label.startsWith("restored to ");
}
