/** Bad usage or configuration: the CLI prints the message on one line and exits with code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The CLI's own usage errors and core's SessionError (kind "usage"): one line, exit code 2. */
export function isUsageError(error: unknown): error is Error {
  return error instanceof UsageError || (error instanceof Error && (error as { kind?: unknown }).kind === "usage");
}
