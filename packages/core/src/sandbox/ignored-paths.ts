import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { ignoredByAny, matchersOf, readIgnoreTexts, type IgnoreMatchers } from "../policy/ignore-matchers.js";
import type { Mask } from "./bwrap-args.js";

/** Folders not walked unless a rule names them: big, and not where people keep secrets. */
const HEAVY = new Set(["node_modules", ".git"]);
/** Beyond this many entries looked at, the walk stops (and says so): a command must start quickly. */
const MAX_ENTRIES = 200_000;
/** Beyond this many masks the command is refused rather than run with some ignored paths visible. */
export const MAX_MASKS = 4_000;

export type IgnoredPaths = { ok: true; masks: Mask[] } | { ok: false; reason: string };

/**
 * The paths of the workspace its ignore files (.cairnignore, .clineignore) match, as they are at
 * this moment: a matched folder is masked whole (not walked into), a file on its own. A link that
 * matches is masked at its real target, so a link to a secret elsewhere hides the secret.
 * Files created after this moment are not masked (the sandbox is set up before the command runs).
 */
export function ignoredPaths(workspace: string): IgnoredPaths {
  const texts = readIgnoreTexts(workspace);
  if (texts.length === 0) return { ok: true, masks: [] };
  // Each file's rules on their own (see IgnoreMatchers): the key keeps where one file ends.
  const text = JSON.stringify(texts);
  const reused = lastWalk?.workspace === workspace && lastWalk.rules === text && unchanged(lastWalk.folders) ? lastWalk.result : undefined;
  if (reused) return reused;
  const folders = new Map<string, number>();
  const result = walkWorkspace(workspace, matchersFor(text, texts), folders);
  lastWalk = { workspace, rules: text, folders, result };
  return result;
}

/**
 * The last walk, kept between commands: a folder's mtime changes whenever an entry is added,
 * removed or renamed in it, so when no walked folder's mtime moved, the masks are still exact and
 * a command starts with one stat per folder instead of a listing of every folder.
 */
let lastWalk: { workspace: string; rules: string; folders: Map<string, number>; result: IgnoredPaths } | undefined;

function unchanged(folders: ReadonlyMap<string, number>): boolean {
  for (const [dir, mtime] of folders) {
    try {
      if (statSync(dir).mtimeMs !== mtime) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function walkWorkspace(workspace: string, matchers: IgnoreMatchers, folders: Map<string, number>): IgnoredPaths {
  const masks: Mask[] = [];
  let seen = 0;
  const walk = (dir: string, relDir: string): string | undefined => {
    let entries: Dirent[];
    try {
      // The mtime is read before the listing: an entry added in between moves it past what was recorded.
      folders.set(dir, statSync(dir).mtimeMs);
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined; // unreadable here, unreadable in the sandbox
    }
    for (const entry of entries) {
      seen += 1;
      if (seen > MAX_ENTRIES) return `the workspace has more than ${MAX_ENTRIES.toLocaleString("en-US")} entries to check against the ignore files`;
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      const full = path.join(dir, entry.name);
      const isDir = entry.isDirectory();
      if (ignoredByAny(matchers, isDir ? `${rel}/` : rel)) {
        const mask = maskFor(full, entry);
        if (mask) masks.push(mask);
        if (masks.length > MAX_MASKS) return `the ignore files match more than ${MAX_MASKS} paths`;
        continue;
      }
      if (isDir && !HEAVY.has(entry.name)) {
        const problem = walk(full, rel);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  const problem = walk(workspace, "");
  if (problem) return { ok: false, reason: problem };
  return { ok: true, masks };
}

/**
 * The matchers of the last rules seen, kept between commands: each remembers every path it has
 * answered for, so walking an unchanged tree again costs little more than reading its folders.
 */
let cached: { rules: string; matchers: IgnoreMatchers } | undefined;

function matchersFor(rules: string, texts: readonly string[]): IgnoreMatchers {
  if (cached?.rules !== rules) cached = { rules, matchers: matchersOf(texts) };
  return cached.matchers;
}

function maskFor(full: string, entry: Dirent): Mask | undefined {
  if (entry.isDirectory()) return { path: full, kind: "dir" };
  if (!entry.isSymbolicLink()) return { path: full, kind: "file" };
  try {
    const real = realpathSync(full);
    return { path: real, kind: statSync(real).isDirectory() ? "dir" : "file" };
  } catch {
    return undefined; // a dangling link names nothing to read
  }
}
