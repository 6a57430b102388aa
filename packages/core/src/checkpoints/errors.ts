/** Something the person can act on went wrong with checkpoints; the message says what to do. */
export class CheckpointError extends Error {
  override name = "CheckpointError";
}
