import { type Dirent, readdirSync, statSync, type Stats } from "node:fs";
import path from "node:path";
import { ignoredByAny, matchersOf, type IgnoreMatchers } from "./ignore-matchers.js";
import { ignoreTextsInForce } from "./pinned-ignore-rules.js";
import { thousands } from "../text/thousands.js";

/** Folders not walked unless a rule names them: big, and not where people keep secrets. */
const HEAVY = new Set(["node_modules", ".git"]);

export type WalkLimits = {
  /** Beyond this many entries looked at, the walk stops and says so. */
  maxEntries: number;
  /** Beyond this many matched paths, the walk stops and says so. */
  maxMatches: number;
  /** Beyond this many entries inside ignored folders, their files' identities are no longer looked at (`complete` false). */
  maxInsideIgnored: number;
};

/** A path the rules match, outermost: a matched folder stands for everything in it. */
export type IgnoredMatch = { path: string; kind: "dir" | "file" | "link" };

export type IgnoredFiles =
  | {
      ok: true;
      matched: IgnoredMatch[];
      /** `identityKey` of every ignored regular file that has more than one name (link count > 1). */
      linkedIdentities: ReadonlySet<string>;
      /** Files the rules do not match that are one of those files: the other names (hard links) of an ignored file. */
      hardLinks: string[];
      /** False when ignored folders held too much to look at every file in them: some ignored files' other names may be missing. */
      complete: boolean;
    }
  | { ok: false; reason: string };

/** A file's identity, whatever it is called: a hard link is the same (device, inode) under another name. */
export function identityKey(stats: { dev: number; ino: number }): string {
  return `${stats.dev}:${stats.ino}`;
}

const NOTHING: IgnoredFiles = { ok: true, matched: [], linkedIdentities: new Set(), hardLinks: [], complete: true };

/**
 * The workspace's files its ignore files match, as they are now, and every other name of them:
 * the ignore rules compare paths, and a hard link (`notes.txt` sharing `.env`'s inode) is the
 * ignored file under a name no rule matches. Folders in `HEAVY` are walked only when a rule names
 * them, for the matches and for the hard links alike; an ignored one is never walked into.
 *
 * Only files with a link count above one can have another name, so the rest of the workspace is
 * stat'ed only when an ignored file has one: the usual walk costs what listing the folders costs.
 */
export function ignoredFiles(workspace: string, limits: WalkLimits, texts: readonly string[] = ignoreTextsInForce(workspace)): IgnoredFiles {
  // By default with the rules tasks in progress have read (see pinned-ignore-rules.ts).
  if (texts.length === 0) return NOTHING;
  // Each file's rules on their own (see IgnoreMatchers): the key keeps where one file ends.
  const rules = JSON.stringify(texts);
  const last = lastWalks.get(workspace);
  if (last !== undefined && last.rules === rules && last.limits === limitsKey(limits) && unchanged(last.watched)) return last.result;
  const watched = new Map<string, number>();
  const result = walkWorkspace(workspace, matchersFor(rules, texts), limits, watched);
  lastWalks.delete(workspace);
  lastWalks.set(workspace, { rules, limits: limitsKey(limits), watched, result });
  // A long-lived host (the web app, a fleet worker) opens many workspaces: keep the recent few.
  for (const old of lastWalks.keys()) {
    if (lastWalks.size <= MAX_KEPT_WALKS) break;
    lastWalks.delete(old);
  }
  return result;
}

/**
 * The last walk of each workspace, kept between calls. A folder's mtime moves whenever an entry is
 * added, removed or renamed in it (a new hard link too), and a file's ctime whenever its link
 * count changes; while none of the watched ones moved, the walk is still exact, and checking costs
 * one stat per folder instead of a listing of every folder.
 */
const MAX_KEPT_WALKS = 8;
const lastWalks = new Map<string, { rules: string; limits: string; watched: Map<string, number>; result: IgnoredFiles }>();

function limitsKey(limits: WalkLimits): string {
  return `${limits.maxEntries}:${limits.maxMatches}:${limits.maxInsideIgnored}`;
}

function unchanged(watched: ReadonlyMap<string, number>): boolean {
  for (const [file, time] of watched) {
    const stats = statOf(file);
    if (stats === undefined || changeTime(stats) !== time) return false;
  }
  return true;
}

/** A folder's content changes its mtime; a file's link count changes its ctime. */
function changeTime(stats: { isDirectory(): boolean; mtimeMs: number; ctimeMs: number }): number {
  return stats.isDirectory() ? stats.mtimeMs : stats.ctimeMs;
}

function walkWorkspace(workspace: string, matchers: IgnoreMatchers, limits: WalkLimits, watched: Map<string, number>): IgnoredFiles {
  const matched: IgnoredMatch[] = [];
  const linked = new Set<string>();
  /** Regular files no rule matches: each may be another name of an ignored file. */
  const others: string[] = [];
  let seen = 0;
  let seenInside = 0;
  const tooMany = () => `the workspace has more than ${thousands(limits.maxEntries)} entries to check against the ignore files`;

  /** Lists a folder, its mtime read first: an entry added in between moves it past what was recorded. */
  const list = (dir: string): Dirent[] | undefined => {
    try {
      watched.set(dir, statSync(dir).mtimeMs);
      return readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined; // unreadable here, unreadable to the tools and in the sandbox
    }
  };
  /** Records an ignored file's identity when it has other names; watched so a new link is seen. */
  const noteIgnoredFile = (file: string) => {
    const stats = statOf(file);
    if (stats === undefined || !stats.isFile()) return;
    watched.set(file, stats.ctimeMs);
    if (stats.nlink > 1) linked.add(identityKey(stats));
  };
  /**
   * Every file in an ignored folder is ignored: only their identities are wanted. A big ignored
   * folder (a data set) stops the looking, not the walk: the folder is still masked whole.
   */
  const collect = (dir: string): void => {
    for (const entry of list(dir) ?? []) {
      seenInside += 1;
      if (seenInside > limits.maxInsideIgnored) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && !HEAVY.has(entry.name)) {
        collect(full);
      } else if (entry.isFile()) {
        const stats = statOf(full);
        if (stats !== undefined && stats.nlink > 1) linked.add(identityKey(stats));
      }
    }
  };
  const walk = (dir: string, relDir: string): string | undefined => {
    for (const entry of list(dir) ?? []) {
      seen += 1;
      if (seen > limits.maxEntries) return tooMany();
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      const full = path.join(dir, entry.name);
      const isDir = entry.isDirectory();
      if (ignoredByAny(matchers, isDir ? `${rel}/` : rel)) {
        matched.push({ path: full, kind: isDir ? "dir" : entry.isSymbolicLink() ? "link" : "file" });
        if (matched.length > limits.maxMatches) return `the ignore files match more than ${limits.maxMatches} paths`;
        if (!isDir) noteIgnoredFile(full);
        else if (!HEAVY.has(entry.name)) collect(full);
        continue;
      }
      if (isDir && !HEAVY.has(entry.name)) {
        const problem = walk(full, rel);
        if (problem) return problem;
      } else if (entry.isFile()) {
        others.push(full);
      }
    }
    return undefined;
  };
  const problem = walk(workspace, "");
  if (problem) return { ok: false, reason: problem };
  const hardLinks = linked.size === 0 ? [] : others.filter((file) => isOneOf(file, linked));
  return { ok: true, matched, linkedIdentities: linked, hardLinks, complete: seenInside <= limits.maxInsideIgnored };
}

/** A file's stats, undefined for one that is gone or cannot be looked at (unreadable to the tools and the sandbox alike). */
export function statOf(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function isOneOf(file: string, identities: ReadonlySet<string>): boolean {
  const stats = statOf(file);
  return stats !== undefined && stats.nlink > 1 && identities.has(identityKey(stats));
}

/**
 * The matchers of the last rules seen: each remembers every path it has answered for, so walking
 * an unchanged tree again costs little more than reading its folders.
 */
let cached: { rules: string; matchers: IgnoreMatchers } | undefined;

function matchersFor(rules: string, texts: readonly string[]): IgnoreMatchers {
  if (cached?.rules !== rules) cached = { rules, matchers: matchersOf(texts) };
  return cached.matchers;
}
