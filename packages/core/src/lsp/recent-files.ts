import { readdirSync, statSync } from "node:fs";
import path from "node:path";

/** Folders never walked: dependencies, build output and version control hold no code of the person's. */
const SKIPPED = new Set(["node_modules", ".git", "dist", "build", "out", "target", "__pycache__", ".venv", "venv", ".tox", ".next", "coverage"]);
/** Entries looked at before the walk stops, so a huge workspace costs a bounded time. */
const MAX_ENTRIES = 20_000;

/**
 * The workspace's most recently modified files that `accept` takes (a server checks them),
 * newest first: what @problems checks when the task has opened no file yet. Hidden folders,
 * dependency and build folders and what `ignored` says are left out.
 */
export function recentFiles(workspace: string, accept: (file: string) => boolean, ignored: (file: string) => boolean, limit: number): string[] {
  const found: Array<{ file: string; mtime: number }> = [];
  const queue = [workspace];
  let seen = 0;
  while (queue.length > 0 && seen < MAX_ENTRIES) {
    const dir = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) break;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith(".") && !SKIPPED.has(entry.name) && !ignored(full)) queue.push(full);
      } else if (entry.isFile() && accept(full) && !ignored(full)) {
        try {
          found.push({ file: full, mtime: statSync(full).mtimeMs });
        } catch {
          // Gone since the listing.
        }
      }
    }
  }
  return found.sort((a, b) => b.mtime - a.mtime).slice(0, limit).map((f) => f.file);
}
