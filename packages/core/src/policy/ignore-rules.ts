import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { realPath } from "./workspace.js";

/** The files that block paths from every tool, in the workspace root (gitignore syntax). */
export const ignoreFileNames = [".cairnignore", ".clineignore"] as const;

/**
 * Paths the person has put out of the agent's reach with .cairnignore (or Cline's .clineignore).
 * Rules are re-read when a file changes, so an edit applies from the next call on.
 */
export class IgnoreRules {
  private matcher: Ignore | undefined;
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

  private current(): Ignore | undefined {
    const stamp = ignoreFileNames.map((name) => this.stampOf(name)).join("|");
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      const rules = ignoreFileNames.flatMap((name) => {
        try {
          return [readFileSync(path.join(this.cwd, name), "utf8")];
        } catch {
          return [];
        }
      });
      // One text: `add(array)` would take each file's whole content as a single pattern.
      this.matcher = rules.length > 0 ? ignore().add(rules.join("\n")) : undefined;
    }
    return this.matcher;
  }

  /**
   * True when an absolute path is blocked: when the path as written, or the real path it names
   * (symlinks and /proc links followed), matches a rule. So `/proc/self/cwd/.env`, a shipped link
   * `docs/cfg.txt -> ../.env` and `secret/../.env` are all `.env`. Paths whose written and real
   * forms are both outside the workspace are never matched here.
   */
  ignores(absolutePath: string): boolean {
    if (this.current() === undefined) return false; // no rules: no need to resolve anything
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
    const matcher = this.current();
    if (!matcher) return false;
    if (matchesWithin(matcher, this.cwd, absolutePath)) return true;
    const root = this.realRoot();
    return root !== undefined && root !== this.cwd && matchesWithin(matcher, root, absolutePath);
  }

  private realRoot(): string | undefined {
    this.realRootCache ??= realPath(this.cwd);
    return this.realRootCache;
  }
}

function matchesWithin(matcher: Ignore, root: string, absolutePath: string): boolean {
  const relative = path.relative(root, absolutePath);
  const outside = relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (relative === "" || outside) return false; // a name like "..env" is inside
  const posix = relative.split(path.sep).join("/");
  return matcher.ignores(posix) || matcher.ignores(`${posix}/`);
}
