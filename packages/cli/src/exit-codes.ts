/**
 * The process's exit codes, in a module of their own: `cairn --version` and `--help` need them,
 * and must not load the agent to get them (headless.ts brings core's session with it).
 */
export const exitCodes = {
  completed: 0,
  failed: 1,
  usage: 2,
  needsInput: 3,
  /** Whoever read stdout went away (`cairn history | head -1`): the status a shell gives a program its pipe ended (128 + SIGPIPE), as git's. */
  readerGone: 141,
} as const;
