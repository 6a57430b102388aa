import fs from "node:fs";
import path from "node:path";
import type { ProtectedHit } from "./protected-paths.js";

/**
 * CAIRN_HOME's files that no tool reads or writes without the person's yes, whatever approves
 * calls outside the workspace (--yolo, read-external, edit-external, a rule): with the fleet's
 * secret (read, or written with a value the model chose), anyone can give the fleet's workers
 * jobs, and a fleet job's run is approved by the worker's --allow, not by a person. The sandbox
 * covers the same files from commands (sandbox/hidden-paths.ts).
 */
export const secretHomeFiles: readonly string[] = ["fleet-secret"];

const reason = "the fleet's secret (CAIRN_HOME/fleet-secret): with it, anyone can give the fleet's workers jobs";

/**
 * Whether reading `target` (a file, or a folder a search or listing walks) would read one of
 * CAIRN_HOME's secret files: by the path as written and its real path (a link, /proc/<pid>/root/…),
 * a folder that holds one, or the same file under another name (a hard link, another case where case is ignored).
 */
export function secretRead(target: string, options: { cwd: string; home?: string }): ProtectedHit | undefined {
  if (!options.home) return undefined;
  const written = path.resolve(options.cwd, target);
  const candidates = unique([written, realOrUndefined(written) ?? written]);
  const homes = unique([path.resolve(options.home), realOrUndefined(options.home) ?? path.resolve(options.home)]);
  for (const home of homes) {
    for (const name of secretHomeFiles) {
      const secret = path.join(home, name);
      if (candidates.includes(secret)) return { path: secret, reason };
      // A folder walked is judged by what it holds now (CAIRN_HOME may be the workspace's .cairn folder, searched all day).
      if (candidates.some((c) => holds(c, secret)) && statOrUndefined(secret) !== undefined) return { path: secret, reason };
    }
  }
  return sameFileAs(candidates.at(-1)!, homes);
}

/** The secret under another name: a hard link, or another spelling on a file system that ignores case. */
function sameFileAs(file: string, homes: readonly string[]): ProtectedHit | undefined {
  const stat = statOrUndefined(file);
  if (!stat || !stat.isFile()) return undefined;
  for (const home of homes) {
    for (const name of secretHomeFiles) {
      const secret = path.join(home, name);
      const other = statOrUndefined(secret);
      if (other && other.ino === stat.ino && other.dev === stat.dev) return { path: secret, reason: `the same file as ${reason}` };
    }
  }
  return undefined;
}

/** Whether folder `outer` holds `inner`. */
function holds(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative !== "" && !path.isAbsolute(relative) && relative !== ".." && !relative.startsWith(`..${path.sep}`);
}

function realOrUndefined(file: string): string | undefined {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return undefined;
  }
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
