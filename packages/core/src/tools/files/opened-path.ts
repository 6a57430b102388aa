import { fstatSync, readlinkSync, statSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { readlink, stat } from "node:fs/promises";
import { decodeName, fsName } from "../../disk/byte-names.js";

const DELETED_SUFFIX = " (deleted)";

/**
 * The real path of the file an open descriptor refers to, read back from the kernel, so what is
 * checked is the file actually opened, not a name that may have been swapped meanwhile.
 *
 * On Linux that is /proc/self/fd/N. Without /proc (macOS), `expected` is taken when it still names
 * the very file opened (same device and inode); undefined when it does not, or when the file is gone.
 */
export async function openedPath(handle: FileHandle, expected: string): Promise<string | undefined> {
  try {
    // As bytes: a name that is not UTF-8 comes back whole (see disk/byte-names.ts).
    const linked = decodeName(await readlink(`/proc/self/fd/${handle.fd}`, { encoding: "buffer" }));
    if (linked.startsWith("/")) return linked.endsWith(DELETED_SUFFIX) ? linked.slice(0, -DELETED_SUFFIX.length) : linked;
  } catch {
    // no /proc here: fall back to comparing identities below
  }
  const [opened, named] = await Promise.all([handle.stat(), stat(fsName(expected)).catch(() => undefined)]);
  if (named === undefined) return undefined;
  return opened.dev === named.dev && opened.ino === named.ino ? expected : undefined;
}

/** `openedPath` for a plain descriptor, synchronously (for callers that cannot wait). */
export function openedPathSync(fd: number, expected: string): string | undefined {
  try {
    const linked = decodeName(readlinkSync(`/proc/self/fd/${fd}`, { encoding: "buffer" }));
    if (linked.startsWith("/")) return linked.endsWith(DELETED_SUFFIX) ? linked.slice(0, -DELETED_SUFFIX.length) : linked;
  } catch {
    // no /proc here: fall back to comparing identities below
  }
  const opened = fstatSync(fd);
  const named = statSync(fsName(expected), { throwIfNoEntry: false });
  if (named === undefined) return undefined;
  return opened.dev === named.dev && opened.ino === named.ino ? expected : undefined;
}
