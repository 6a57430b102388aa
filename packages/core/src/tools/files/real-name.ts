import { realpathSync } from "node:fs";
import { decodeName, encodeName, hasRawBytes } from "../../disk/byte-names.js";
import { realPath } from "../../policy/workspace.js";

/**
 * `realPath` for a path that may hold a name that is not UTF-8 (decoded without loss, see
 * disk/byte-names.ts): such a path is resolved by its exact bytes, every link followed, so a
 * link under a name of raw bytes is judged by where it leads like any other. Undefined when links
 * loop, or when such a path does not exist (only a found file ever has one).
 */
export function realPathOfName(absolute: string): string | undefined {
  if (!hasRawBytes(absolute)) return realPath(absolute);
  try {
    return decodeName(realpathSync.native(encodeName(absolute), { encoding: "buffer" }));
  } catch {
    return undefined;
  }
}
