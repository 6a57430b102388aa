/** One command for a host's executor: run `command` with a shell in `cwd`, streaming its output. */
export type CommandRequest = {
  command: string;
  /** The workspace folder, as the task knows it (the executor maps it to its own, e.g. a remote checkout). */
  cwd: string;
  signal: AbortSignal;
  /** The longest the call should wait; the executor stops the command then (or ends it its own way). */
  timeoutMs: number;
  /** Variables the task adds to every command (its id, so leftovers can be found). */
  env: Record<string, string>;
  /** Output as it comes (stdout and stderr merged). */
  onOutput(text: string): void;
};

/** How a command ended: its exit code (null when a signal ended it). */
export type CommandExit = { exitCode: number | null; signal?: NodeJS.Signals | null };

/**
 * A host's own way to run commands: a remote workspace, a container, a build farm. When a host gives
 * one, execute_command runs there (the host answers for the isolation); without it, commands run
 * here in the task's OS sandbox. Approvals, command rules and the classifier apply either way.
 * Throwing means the command could not be started; say why in the message.
 */
export type CommandExecutor = {
  run(request: CommandRequest): Promise<CommandExit>;
};
