import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { realPath } from "../../policy/workspace.js";
import { openedPath, openedPathSync } from "./opened-path.js";
import { realPathOfName } from "./real-name.js";
import { fsName, lossyName } from "../../disk/byte-names.js";
import { linkRefusal, refusal, refusalFor, type Boundary, type FileUse, type Refusal } from "./path-check.js";

export type OpenedFile = {
  ok: true;
  /** Open for reading; the caller closes it. */
  handle: FileHandle;
  /** The real path of the opened file, as the kernel reports it. */
  real: string;
  stats: Stats;
};

/**
 * Never follow a final link swapped in after the check; never block on a FIFO or adopt a terminal.
 * (O_NOFOLLOW and O_NOCTTY do not exist on Windows, where 0 leaves them out.)
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Opens a file for reading at the moment of use, held to the workspace boundary and the ignore
 * rules by what it is, not how it is named: the path is resolved to its real location and checked,
 * that real path is opened without following a final link, and the descriptor's own path is read
 * back from the kernel and checked again before a byte is read. A link swapped in at any point
 * is either not followed or caught by the second check.
 *
 * File system errors (ENOENT, EACCES, ...) are thrown for the caller to word; policy refusals are
 * returned. The caller inspects `stats` (a folder or a device opens too) and closes `handle`.
 */
export async function openChecked(boundary: Boundary, absolute: string, shown: string, use: FileUse = "read"): Promise<OpenedFile | Refusal> {
  // A name that is not UTF-8 (a file search found) is resolved and opened by its exact bytes, and
  // judged by the rules as reading it as UTF-8 gives it (see disk/byte-names.ts); other paths are unchanged.
  const real = realPathOfName(absolute);
  if (real === undefined) return refusal(`${shown} is a loop of symlinks; it names no file.`);
  const before = refusalFor(boundary, lossyName(absolute), lossyName(real), shown, use);
  if (before !== undefined) return refusal(before);

  let handle: FileHandle;
  try {
    handle = await open(fsName(real), READ_FLAGS);
  } catch (error) {
    if (errorCode(error) === "ELOOP") return refusal(changedWhileOpening(shown));
    throw error;
  }
  try {
    const opened = await openedPath(handle, real);
    if (opened === undefined) return await closed(handle, refusal(changedWhileOpening(shown)));
    const after = refusalFor(boundary, lossyName(absolute), lossyName(opened), shown, use);
    if (after !== undefined) return await closed(handle, refusal(after));
    const stats = await handle.stat();
    // The file in hand, not a name: a hard link swapped in after the checks is caught here.
    const linked = linkRefusal(boundary, boundary.ignore.ignoresLinked(stats), shown);
    if (linked !== undefined) return await closed(handle, refusal(linked));
    return { ok: true, handle, real: opened, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads a whole file through `openChecked`; the handle is closed before returning. */
export async function readChecked(boundary: Boundary, absolute: string, shown: string): Promise<{ ok: true; data: Buffer; real: string; stats: Stats } | Refusal> {
  const opened = await openChecked(boundary, absolute, shown);
  if (!opened.ok) return opened;
  try {
    if (!opened.stats.isFile()) return refusal(`${shown} is not a regular file; it cannot be read.`);
    return { ok: true, data: await opened.handle.readFile(), real: opened.real, stats: opened.stats };
  } finally {
    await opened.handle.close();
  }
}

/**
 * `readChecked` synchronously, for a caller that cannot wait (a preview built while a call
 * streams in). Undefined for anything it may not read or cannot read; it never throws.
 */
export function readCheckedSync(boundary: Boundary, absolute: string): Buffer | undefined {
  const real = realPath(absolute);
  if (real === undefined || refusalFor(boundary, absolute, real, absolute, "read") !== undefined) return undefined;
  let fd: number;
  try {
    fd = openSync(real, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const opened = openedPathSync(fd, real);
    if (opened === undefined || refusalFor(boundary, absolute, opened, absolute, "read") !== undefined) return undefined;
    const stats = fstatSync(fd);
    if (!stats.isFile() || boundary.ignore.ignoresLinked(stats) !== undefined) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function changedWhileOpening(shown: string): string {
  return `${shown} changed while it was being opened (a symlink was swapped in). Look at it with list_files, then try again.`;
}

async function closed<T>(handle: FileHandle, value: T): Promise<T> {
  await handle.close();
  return value;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
