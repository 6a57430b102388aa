export {
  Checkpoints,
  type Checkpoint,
  type CheckpointDiff,
  type CheckpointOptions,
  type FileChange,
  type IndexingAway,
  type RestoreOptions,
  type RestoreOutcome,
  type RestorePreview,
  type StepChange,
  type StepCheckpoint,
  type StepOptions,
  defaultLazyAboveFiles,
} from "./checkpoints.js";
export { beforeRestoreLabel, isCairnStep, restoredToLabel } from "./steps.js";
export { laterSteps, previewTaskRestore, restoreTaskFiles, type TaskCheckpoint, type TaskRestoreOutcome } from "./task-restore.js";
export { alwaysExcluded, heavyDirectories, heavyExtensions } from "./exclusions.js";
export type { RestoreResult, UntouchedFile } from "./restore.js";
export { CheckpointError, CheckpointStoreDamagedError } from "./errors.js";
export { IndexingLeftRunning } from "./first-index.js";
export { defaultMaxFileBytes } from "./shadow-repo.js";
export { readableCheckpoints, type CheckpointReadability } from "./inspect.js";
