/**
 * The process's exit codes, in a module of their own: `cairn --version` and `--help` need them,
 * and must not load the agent to get them (headless.ts brings core's session with it).
 */
export const exitCodes = { completed: 0, failed: 1, usage: 2, needsInput: 3 } as const;
