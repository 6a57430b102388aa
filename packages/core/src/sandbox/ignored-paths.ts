import { realpathSync, statSync } from "node:fs";
import { ignoredFiles, type IgnoredMatch } from "../policy/ignored-files.js";
import type { Mask } from "./bwrap-args.js";

/** Beyond this many entries looked at, the walk stops (and says so): a command must start quickly. */
const MAX_ENTRIES = 200_000;
/** Entries inside ignored folders looked at for hard links (the folders themselves are masked whole). */
const MAX_INSIDE_IGNORED = 50_000;
/** Beyond this many masks the command is refused rather than run with some ignored paths visible. */
export const MAX_MASKS = 4_000;

export type IgnoredPaths = { ok: true; masks: Mask[] } | { ok: false; reason: string };

/**
 * The paths of the workspace its ignore files (.cairnignore, .clineignore) match, as they are at
 * this moment: a matched folder is masked whole, a file on its own. A link that matches is masked
 * at its real target, so a link to a secret elsewhere hides the secret; a hard link of an ignored
 * file (the same inode under a name no rule matches) is masked like the file it is.
 * Files created after this moment are not masked (the sandbox is set up before the command runs).
 */
export function ignoredPaths(workspace: string): IgnoredPaths {
  // Past MAX_INSIDE_IGNORED entries in ignored folders, hard links of the rest go unmasked: a data
  // set folder must not stop every command, and a hard link into it is not what repositories ship.
  const found = ignoredFiles(workspace, { maxEntries: MAX_ENTRIES, maxMatches: MAX_MASKS, maxInsideIgnored: MAX_INSIDE_IGNORED });
  if (!found.ok) return found;
  const masks = [...found.matched.flatMap((match) => maskFor(match) ?? []), ...found.hardLinks.map((file): Mask => ({ path: file, kind: "file" }))];
  if (masks.length > MAX_MASKS) return { ok: false, reason: `the ignore files match more than ${MAX_MASKS} paths` };
  return { ok: true, masks };
}

function maskFor(match: IgnoredMatch): Mask | undefined {
  if (match.kind !== "link") return { path: match.path, kind: match.kind };
  try {
    const real = realpathSync(match.path);
    return { path: real, kind: statSync(real).isDirectory() ? "dir" : "file" };
  } catch {
    return undefined; // a dangling link names nothing to read
  }
}
