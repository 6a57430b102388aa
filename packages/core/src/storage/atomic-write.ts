import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

/**
 * Writes a file so that a reader sees either the old content or the new, never a mix: the data
 * goes to a temp file in the same folder, is flushed, then renamed over the target.
 * A crash between the write and the rename leaves a stray `.tmp` file and the old content intact.
 */
export function writeFileAtomicSync(file: string, data: string): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  const fd = openSync(temp, "w", 0o600);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, file);
}
