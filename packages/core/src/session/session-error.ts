/**
 * A problem the person must fix before a task can open (a bad flag, variable or settings file, an
 * unknown or busy task): one line that says what to do. Hosts show it as it is; the CLI exits 2.
 */
export class SessionError extends Error {
  override name = "SessionError";
  readonly kind = "usage" as const;
}
