import { createHash } from "node:crypto";
import { hostFilesFor, type TextFiles } from "../files/index.js";

/**
 * What one call's edit preview started from, by the path as the call resolves it (workspaceAbsolute):
 * the file's real path and a digest of its bytes as read (the editor's buffer, or the disk), null for
 * a file that did not exist. The preview fills it in; the call's execute checks it before writing.
 */
export type PreviewedFiles = Map<string, { real: string; digest: string | null }>;

/** Notes that the preview of `absolute` started from `bytes` (null: no file) at `real`. */
export function notePreviewed(previewed: PreviewedFiles | undefined, absolute: string, real: string, bytes: Buffer | null): void {
  previewed?.set(absolute, { real, digest: bytes === null ? null : digestOf(bytes) });
}

/**
 * The failure the model reads when the file an edit is about to change is not the one its diff was
 * shown from: the person (or anything else) changed it after seeing the diff, in the editor or on
 * disk, and writing now would apply an edit nobody approved to text nobody saw, or drop the
 * person's new typing. Undefined when it is unchanged, or no preview read it. `found`: the bytes
 * the call just read from `real`, undefined when there is no file.
 */
export function changedSincePreview(
  ctx: { cwd: string; files?: TextFiles | undefined; previewed?: PreviewedFiles | undefined },
  absolute: string,
  shown: string,
  found: { real: string; bytes: Buffer } | undefined,
): string | undefined {
  const seen = ctx.previewed?.get(absolute);
  if (seen === undefined) return undefined;
  const same = found === undefined ? seen.digest === null : seen.real === found.real && seen.digest === digestOf(found.bytes);
  if (same) return undefined;
  const where = hostFilesFor(ctx, found?.real ?? seen.real) === undefined ? "on disk" : "in the editor";
  return `${shown} changed ${where} after the person was shown this edit's diff, so nothing was written: read ${shown} again and redo the edit.`;
}

function digestOf(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
