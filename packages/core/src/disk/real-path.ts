import { realpathSync } from "node:fs";
import path from "node:path";

/**
 * Where a path really is (links resolved), or the path made absolute when it does not exist yet:
 * two names of one file (a symlinked checkout, CAIRN_HOME inside the workspace) compare equal.
 */
export function realOrResolved(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return path.resolve(file);
  }
}
