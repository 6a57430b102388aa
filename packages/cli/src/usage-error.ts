/** Bad usage or configuration: the CLI prints the message on one line and exits with code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}
