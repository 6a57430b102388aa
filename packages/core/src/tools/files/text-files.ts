import { isInside, realPath } from "../../policy/workspace.js";
import type { OpenedFile } from "./open-checked.js";

/**
 * A host's own access to text files (an editor's buffers, through ACP's fs/* methods). File tools
 * read and write workspace files through it when the host gives one, so the model sees unsaved
 * edits and its writes land in the editor, with undo there. Paths are absolute and real, and have
 * passed the boundary and ignore checks before they get here.
 */
export type TextFiles = {
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<void>;
};

/** The host's files for `real`, when there are any and it lies in the workspace; otherwise the local disk is used. */
export function hostFilesFor(where: { cwd: string; files?: TextFiles | undefined }, real: string): TextFiles | undefined {
  if (where.files === undefined) return undefined;
  const root = realPath(where.cwd) ?? where.cwd;
  return isInside(root, real) ? where.files : undefined;
}

/** The bytes of a file opened through `openChecked`: the host's text when it has the file, else the disk's. */
export async function readOpenedBytes(where: { cwd: string; files?: TextFiles | undefined }, opened: OpenedFile): Promise<Buffer> {
  const host = hostFilesFor(where, opened.real);
  if (host === undefined) return await opened.handle.readFile();
  return Buffer.from(await host.readText(opened.real), "utf8");
}
