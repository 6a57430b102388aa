import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { realPath } from "../../policy/workspace.js";
import { openedPath } from "./opened-path.js";
import { refusal, refusalFor, type Boundary, type Refusal } from "./path-check.js";
import { hostFilesFor } from "./text-files.js";

/** A new temporary file, never through a link (O_EXCL already refuses one; O_NOFOLLOW says so twice). */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

export type WriteOptions = {
  /** Permission bits for the file (an existing file's are kept by passing its mode). */
  mode?: number | undefined;
  /** The real path the caller read the old content from: the write is refused if the path now leads elsewhere. */
  expectReal?: string | undefined;
};

/**
 * Replaces the content of `absolute` as one atomic step, held to the workspace boundary and the
 * ignore rules at the moment of use. A symlink is written through (its target gets the content,
 * the link stays), but only to a target that passes the checks.
 *
 * The data goes to a temporary file created in the target's real folder; the descriptor's real
 * path proves it landed in that folder; the folder's real path is checked once more right before
 * the rename; and rename(2) replaces whatever has the final name, a link swapped in included,
 * instead of following it. What is left: a process that moves the checked folder itself outside
 * the workspace (and leaves a link) in the instant between that last check and the rename; such a
 * process can write outside on its own, which is the OS sandbox's to stop.
 *
 * File system errors (EACCES, ENOTDIR, EEXIST, EROFS, ...) are thrown; policy refusals returned.
 */
export async function writeChecked(
  boundary: Boundary,
  absolute: string,
  shown: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<{ ok: true; real: string } | Refusal> {
  const target = realPath(absolute);
  if (target === undefined) return refusal(`${shown} is a loop of symlinks; it names no file to write.`);
  if (options.expectReal !== undefined && target !== options.expectReal) return refusal(changedWhileWriting(shown));
  const refused = refusalFor(boundary, absolute, target, shown, "edit");
  if (refused !== undefined) return refusal(refused);
  // An editor host writes its buffer (and saves it) itself; the checks above still decided.
  const host = hostFilesFor(boundary, target);
  if (host !== undefined && typeof data === "string") {
    await host.writeText(target, data);
    return { ok: true, real: target };
  }

  const folder = path.dirname(target);
  await mkdir(folder, { recursive: true });
  if (realPath(folder) !== folder) return refusal(changedWhileWriting(shown));

  const temporary = path.join(folder, `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temporary, CREATE_FLAGS, 0o666);
  let placed: string | undefined;
  try {
    placed = await openedPath(handle, temporary);
    if (placed === undefined || path.dirname(placed) !== folder) {
      await discard(handle, placed ?? temporary);
      return refusal(changedWhileWriting(shown));
    }
    await handle.writeFile(data);
    if (options.mode !== undefined) await handle.chmod(options.mode & 0o7777);
  } catch (error) {
    await discard(handle, placed ?? temporary);
    throw error;
  }
  await handle.close();
  const landed = placed ?? temporary;

  // rename resolves the folder again: it must still be the one checked.
  if (realPath(folder) !== folder) {
    await unlink(landed).catch(() => {});
    return refusal(changedWhileWriting(shown));
  }
  try {
    await rename(temporary, target);
  } catch (error) {
    await unlink(landed).catch(() => {}); // best effort: the write already failed
    throw error;
  }
  return { ok: true, real: target };
}

async function discard(handle: FileHandle, file: string): Promise<void> {
  await handle.close().catch(() => {});
  await unlink(file).catch(() => {}); // best effort: nothing was written there yet
}

function changedWhileWriting(shown: string): string {
  return `${shown} changed while it was being written (a symlink or folder was swapped); nothing was written. Look at it with list_files, then try again.`;
}
