import { readFileSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

/** The files that block paths from every tool, in the workspace root (gitignore syntax). */
export const ignoreFileNames = [".cairnignore", ".clineignore"] as const;

/**
 * Each ignore file's rules as its own matcher, for the files that exist and hold any rule. A path
 * is ignored when ANY of them ignores it: a `!pattern` re-includes only what its own file
 * excluded. Joined into one list, a `.clineignore` that a command creates with `!.env` would
 * un-ignore what the person's `.cairnignore` ignores; kept apart, a new or edited ignore file can
 * only add to what is out of reach.
 */
export type IgnoreMatchers = readonly Ignore[];

/** The text of each ignore file that exists and holds anything but blanks, in `ignoreFileNames` order. */
export function readIgnoreTexts(workspace: string): string[] {
  return ignoreFileNames.flatMap((name) => {
    try {
      const text = readFileSync(path.join(workspace, name), "utf8");
      return text.trim() === "" ? [] : [text];
    } catch {
      return [];
    }
  });
}

/** One matcher per file's text: `add(array)` would take each whole text as a single pattern. */
export function matchersOf(texts: readonly string[]): IgnoreMatchers {
  return texts.map((text) => ignore().add(text));
}

/** True when any file's rules ignore `posix` (relative to the workspace, "/" separators, a folder ending in "/"). */
export function ignoredByAny(matchers: IgnoreMatchers, posix: string): boolean {
  return matchers.some((matcher) => matcher.ignores(posix));
}
