import type { IgnoreRules } from "../../policy/ignore-rules.js";
import { isInside, realPath, resolveWorkspacePath } from "../../policy/workspace.js";
import { openChecked, type OpenedFile } from "./open-checked.js";

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

/** The host's text of files, by real path, read ahead for a caller that cannot wait on the host. */
export type HostTexts = ReadonlyMap<string, string>;

/**
 * The host's text of each of `paths` it holds, read ahead for an edit's preview (computed where
 * nothing can wait on an editor's reply), the way the edit itself will read it: `openChecked` on the
 * path, then the host's text of the real path it opened. A path outside the workspace, refused by the
 * ignore rules, missing or not a regular file is left out without asking the host; one whose text the
 * host could not give is left out too. Undefined without host files: previews read the disk.
 */
export async function readHostTexts(where: { cwd: string; ignore: IgnoreRules; files?: TextFiles | undefined }, paths: readonly string[]): Promise<HostTexts | undefined> {
  if (where.files === undefined) return undefined;
  const texts = new Map<string, string>();
  for (const given of paths) {
    const resolved = resolveWorkspacePath(where.cwd, given);
    if (resolved.external) continue;
    try {
      const opened = await openChecked(where, resolved.absolute, given, "edit");
      if (!opened.ok) continue;
      try {
        const host = hostFilesFor(where, opened.real);
        if (host !== undefined && opened.stats.isFile()) texts.set(opened.real, await host.readText(opened.real));
      } finally {
        await opened.handle.close();
      }
    } catch {
      // Missing, unreadable, or the host failed: nothing to preview from (never the disk in its place).
    }
  }
  return texts;
}
