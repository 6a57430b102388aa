import { statSync } from "node:fs";
import path from "node:path";
import { ignoreFileNames, ignoredByAny, matchersOf, readIgnoreTexts, type IgnoreMatchers } from "./ignore-matchers.js";
import { realPath } from "./workspace.js";

export { ignoreFileNames };

/**
 * Paths the person has put out of the agent's reach with .cairnignore (or Cline's .clineignore).
 * Rules are re-read when a file changes, so an edit applies from the next call on.
 */
export class IgnoreRules {
  private matchers: IgnoreMatchers = [];
  private stamp = "";
  private realRootCache: string | undefined;

  constructor(readonly cwd: string) {}

  /** Names of the ignore files in force, for messages. */
  get files(): string[] {
    return ignoreFileNames.filter((name) => this.stampOf(name) !== "");
  }

  private stampOf(name: string): string {
    try {
      // Checked on every call; a missing file without an exception costs a tenth as much.
      const stat = statSync(path.join(this.cwd, name), { throwIfNoEntry: false });
      return stat?.isFile() === true ? `${stat.mtimeMs}:${stat.size}` : "";
    } catch {
      return "";
    }
  }

  private current(): IgnoreMatchers {
    const stamp = ignoreFileNames.map((name) => this.stampOf(name)).join("|");
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      this.matchers = matchersOf(readIgnoreTexts(this.cwd));
    }
    return this.matchers;
  }

  /**
   * True when an absolute path is blocked: when the path as written, or the real path it names
   * (symlinks and /proc links followed), matches a rule. So `/proc/self/cwd/.env`, a shipped link
   * `docs/cfg.txt -> ../.env` and `secret/../.env` are all `.env`. Paths whose written and real
   * forms are both outside the workspace are never matched here.
   */
  ignores(absolutePath: string): boolean {
    if (this.current().length === 0) return false; // no rules: no need to resolve anything
    if (this.ignoresAsWritten(absolutePath)) return true;
    const real = realPath(absolutePath);
    // A link loop names no file, so nothing can be read through it.
    return real !== undefined && this.ignoresAsWritten(real);
  }

  /**
   * The same rules on the path exactly as given, no link followed: for a path that is already real
   * (a descriptor's path from the kernel), where following links again would judge whatever the
   * name leads to by now instead of the file in hand.
   */
  ignoresAsWritten(absolutePath: string): boolean {
    const matchers = this.current();
    if (matchers.length === 0) return false;
    if (matchesWithin(matchers, this.cwd, absolutePath)) return true;
    const root = this.realRoot();
    return root !== undefined && root !== this.cwd && matchesWithin(matchers, root, absolutePath);
  }

  private realRoot(): string | undefined {
    this.realRootCache ??= realPath(this.cwd);
    return this.realRootCache;
  }
}

function matchesWithin(matchers: IgnoreMatchers, root: string, absolutePath: string): boolean {
  const relative = path.relative(root, absolutePath);
  const outside = relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (relative === "" || outside) return false; // a name like "..env" is inside
  const posix = relative.split(path.sep).join("/");
  return ignoredByAny(matchers, posix) || ignoredByAny(matchers, `${posix}/`);
}
