import { BrowserSession, type BrowserSessionOptions } from "./browser-session.js";

const byScratchDir = new Map<string, BrowserSession>();

/**
 * The browser of the task a tool call belongs to, made on first use (with `options`, when given).
 * Tasks are told apart by their scratch folder, as terminals are.
 */
export function browserFor(ctx: { scratchDir: string }, options?: BrowserSessionOptions): BrowserSession {
  const existing = byScratchDir.get(ctx.scratchDir);
  if (existing !== undefined) return existing;
  const session = new BrowserSession(options);
  byScratchDir.set(ctx.scratchDir, session);
  return session;
}

/** Makes `session` the one `browserFor` returns for `scratchDir` (a host's, with its viewport; a test's, with short timings). */
export function useBrowser(scratchDir: string, session: BrowserSession): void {
  byScratchDir.set(scratchDir, session);
}

/** Stops the task's browser, if it has one, and forgets it. For the end of a task; safe to call twice. */
export async function closeBrowserFor(scratchDir: string): Promise<void> {
  const session = byScratchDir.get(scratchDir);
  if (session === undefined) return;
  byScratchDir.delete(scratchDir);
  await session.dispose();
}
