import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

/**
 * Writes a file so that a reader sees either the old content or the new, never a mix: the data
 * goes to a temp file in the same folder, is flushed, then renamed over the target.
 * A crash between the write and the rename leaves a stray `.tmp` file and the old content intact.
 */
export function writeFileAtomicSync(file: string, data: string, options: { durable?: boolean } = {}): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  const fd = openSync(temp, "w", 0o600);
  try {
    writeSync(fd, data);
    // `durable: false` for caches that can be rebuilt: the rename alone keeps them whole if the process dies.
    if (options.durable !== false) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw withPath(error, file);
  }
  closeSync(fd);
  renameSync(temp, file);
}

/**
 * Appends `data` to `file` whole or not at all: a write that fails part way (a full disk) is cut
 * back to the old length, so the next append after the cause is fixed does not land on a torn line.
 */
export function appendWholeSync(file: string, data: string): void {
  const fd = openSync(file, "a", 0o600);
  let size = 0;
  try {
    size = fstatSync(fd).size;
    writeSync(fd, data);
  } catch (error) {
    try {
      ftruncateSync(fd, size);
    } catch {
      // Nothing more can be done here; the loader already skips a torn last line.
    }
    throw withPath(error, file);
  } finally {
    closeSync(fd);
  }
}

/** Write errors from a file descriptor carry no path; a person needs to know which file failed. */
function withPath(error: unknown, file: string): unknown {
  if (error instanceof Error && !("path" in error)) Object.assign(error, { path: file });
  return error;
}
