import { realOrResolved } from "../disk/real-path.js";
import { readIgnoreTexts } from "./ignore-matchers.js";

/**
 * The ignore files' texts that tasks in progress have read since they began, per workspace (real path).
 * A command can delete or rewrite an ignore file (a `.cairnignore` that is a symlink is not held
 * read-only: the mount lands on its target), so the sandbox's masks, computed at each command's
 * start, take these together with whatever the files say now: what was out of reach when the task
 * began stays so until it ends. Held only while a task runs, so a long-lived host (web, ACP) sees a
 * removed rule go at its next task instead of keeping every rule it ever read.
 */
const pinned = new Map<string, Map<symbol, string[]>>();

/**
 * Keeps `texts` in force for commands in `workspace` until the returned function is called. The
 * array is the task's own and grows: a text a command's start reads (a rule the person just added)
 * is pinned too, so a later command cannot take it away either.
 */
export function pinIgnoreTexts(workspace: string, texts: string[]): () => void {
  const key = realOrResolved(workspace);
  const token = Symbol("task");
  const held = pinned.get(key) ?? new Map<symbol, string[]>();
  held.set(token, texts);
  pinned.set(key, held);
  return () => {
    held.delete(token);
    if (held.size === 0 && pinned.get(key) === held) pinned.delete(key);
  };
}

/** Each ignore file's text now, then any other text a task in progress pinned: the rules commands are held to. */
export function ignoreTextsInForce(workspace: string): string[] {
  const now = readIgnoreTexts(workspace);
  if (pinned.size === 0) return now; // the usual case costs no realpath
  const held = [...(pinned.get(realOrResolved(workspace))?.values() ?? [])];
  for (const texts of held) for (const text of now) if (!texts.includes(text)) texts.push(text);
  return unionOfTexts(now, held.flat());
}

/** `first` then every text of `more` not already there: each stays its own file's rules (see IgnoreMatchers). */
export function unionOfTexts(first: readonly string[], more: readonly string[]): string[] {
  const union = [...first];
  for (const text of more) if (!union.includes(text)) union.push(text);
  return union;
}
