export {
  Checkpoints,
  type Checkpoint,
  type CheckpointDiff,
  type CheckpointOptions,
  type FileChange,
} from "./checkpoints.js";
export { alwaysExcluded, heavyDirectories, heavyExtensions } from "./exclusions.js";
export type { RestoreResult } from "./restore.js";
export { CheckpointError } from "./errors.js";
export { defaultMaxFileBytes } from "./shadow-repo.js";
