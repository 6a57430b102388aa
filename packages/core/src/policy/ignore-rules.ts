import { statSync } from "node:fs";
import path from "node:path";
import { ignoreFileNames, ignoredByAny, matchersOf, readIgnoreTexts, type IgnoreMatchers } from "./ignore-matchers.js";
import { identityKey, ignoredFiles, statOf, type IgnoredFiles } from "./ignored-files.js";
import { pinIgnoreTexts, unionOfTexts } from "./pinned-ignore-rules.js";
import { realPath } from "./workspace.js";

export { ignoreFileNames };

/** Looking for the ignored files that have other names stops here (then those names are refused unchecked). */
const LINK_WALK_LIMITS = { maxEntries: 200_000, maxMatches: 20_000, maxInsideIgnored: 50_000 };

/** How long one look for the ignored files' other names answers for. */
const LINK_MEMO_MS = 1_000;

/** What a file's identity says: one of the ignored files, cannot be told (the workspace is too big to walk), or neither. */
export type LinkVerdict = "ignored" | "unchecked" | undefined;

/** The part of a file's stats that tells its identity and whether it has other names. */
export type FileIdentity = { dev: number; ino: number; nlink: number; isFile(): boolean };

/**
 * Paths the person has put out of the agent's reach with .cairnignore (or Cline's .clineignore).
 * Rules are re-read when a file changes, so a rule added applies from the next call on; every text
 * this instance has read (one instance per task) stays in force with them. A command can delete,
 * empty or rewrite an ignore file (one that is a symlink is not held read-only), so a change can
 * only add rules during the task: removing one is the person's choice at the next task's start.
 */
export class IgnoreRules {
  private matchers: IgnoreMatchers = [];
  private stamp = "";
  private realRootCache: string | undefined;
  private linkedMemo: { stamp: string; at: number; found: IgnoredFiles } | undefined;
  /** Every text read so far (the first ones when the task began), and the names of the files that held them. */
  private readonly seen: string[];
  private readonly seenFiles = new Set<string>();

  constructor(readonly cwd: string) {
    this.seen = readIgnoreTexts(cwd);
    this.noteFiles();
  }

  /** Names of the ignore files in force (now or earlier in the task), for messages. */
  get files(): string[] {
    this.noteFiles();
    return ignoreFileNames.filter((name) => this.seenFiles.has(name));
  }

  private noteFiles(): void {
    for (const name of ignoreFileNames) if (this.stampOf(name) !== "") this.seenFiles.add(name);
  }

  /**
   * Holds the rules read so far for the sandbox's masks too (they are computed from the files at
   * each command's start, which then adds what it reads) until the returned function is called:
   * for the length of a run.
   */
  holdForCommands(): () => void {
    return pinIgnoreTexts(this.cwd, this.seen);
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
      for (const text of unionOfTexts(this.seen, readIgnoreTexts(this.cwd)).slice(this.seen.length)) this.seen.push(text);
      this.matchers = matchersOf(this.seen);
      this.noteFiles();
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

  /**
   * Whether a file in hand (the fstat of an opened descriptor) is an ignored file under another
   * name: a regular file with more than one link is judged by its identity as well as its path, so
   * a hard link `notes.txt` to `.env` is `.env`. Files with one link, the usual case, cost nothing;
   * the ignored files' identities come from a walk kept until a folder or an ignored file changes.
   */
  ignoresLinked(stats: FileIdentity): LinkVerdict {
    if (!stats.isFile() || stats.nlink < 2 || this.current().length === 0) return undefined;
    const found = this.linkedFiles();
    if (!found.ok) return "unchecked";
    if (found.linkedIdentities.has(identityKey(stats))) return "ignored";
    return found.complete ? undefined : "unchecked";
  }

  /** `ignoresLinked` for the file at a real path, when no descriptor is open (undefined for a path that names nothing). */
  ignoresLinkedAt(real: string): LinkVerdict {
    // One stat, and only a file with other names goes further (most files have one).
    const stats = statOf(real);
    return stats === undefined ? undefined : this.ignoresLinked(stats);
  }

  /**
   * The walk's answer, reused for a moment: a search judges hundreds of files in a burst, and in a
   * pnpm workspace (hard-linked node_modules) each would otherwise stat every folder again. Rules
   * that change are seen at once (the stamp); a hard link made meanwhile, a moment later.
   */
  private linkedFiles(): IgnoredFiles {
    const now = Date.now();
    if (this.linkedMemo?.stamp === this.stamp && now - this.linkedMemo.at < LINK_MEMO_MS) return this.linkedMemo.found;
    const found = ignoredFiles(this.cwd, LINK_WALK_LIMITS, this.seen);
    this.linkedMemo = { stamp: this.stamp, at: now, found };
    return found;
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
