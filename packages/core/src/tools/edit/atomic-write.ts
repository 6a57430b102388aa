import { randomBytes } from "node:crypto";
import { chmod, rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Writes to a temporary file beside the target, then renames it over, so the file is either the old
 * content or the new one, never half of each; the target's permission bits are kept.
 */
export async function writeFileAtomically(target: string, data: string | Uint8Array, mode: number | undefined): Promise<void> {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temporary, data, { flag: "wx" });
    if (mode !== undefined) await chmod(temporary, mode & 0o7777);
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => {}); // best effort: the write already failed
    throw error;
  }
}
