/** Something the person can act on went wrong with checkpoints; the message says what to do. */
export class CheckpointError extends Error {
  override name = "CheckpointError";
}

/**
 * The shadow repository itself is broken (objects deleted, HEAD or refs overwritten, a disk that lost
 * writes): nothing in it can be trusted until the person moves it aside.
 */
export class CheckpointStoreDamagedError extends CheckpointError {
  override name = "CheckpointStoreDamagedError";
  constructor(
    readonly gitDir: string,
    readonly reason: string,
  ) {
    super(
      `the checkpoint store at ${gitDir} is damaged (${reason}); run with checkpoints off ("checkpoints": false in settings.json) or move ${gitDir} aside to start a new one`,
    );
  }
}

/** What git says when the repository's own data is unreadable, as opposed to a busy lock or a full disk. */
const damageSigns =
  /not a git repository|missing (object|blob|tree|commit)|bad object|invalid object|unable to read|corrupt|bad signature|inflate|could not parse|broken|invalid sha1 pointer|bad tree|bad revision|unknown object type|does not point to a valid object|packfile|loose object/i;

/** Git's one-line reason when its stderr shows a damaged repository, else undefined. */
export function damageReason(stderr: string): string | undefined {
  if (!damageSigns.test(stderr)) return undefined;
  const line = stderr.split("\n").find((l) => damageSigns.test(l)) ?? stderr;
  return line.replace(/^(fatal|error): /, "").trim().slice(0, 300);
}
