import { lstat, readdir } from "node:fs/promises";
import { decodeName, fsName } from "../disk/byte-names.js";
import path from "node:path";
import { heavyDirectories } from "./exclusions.js";

/**
 * Nested repositories (a vendored clone, a submodule, a `git init` inside the workspace).
 *
 * `git add -A` sees a folder holding `.git` as an embedded repository: it stages a gitlink (just
 * the nested HEAD's commit id, none of the files), or fails outright when that repository has no
 * commit yet; `git status` lists it as one untracked folder. Cline works around this by renaming
 * every nested `.git` to `.git_disabled` during the add, and sometimes leaves them renamed. Here
 * nothing in the workspace is renamed: the nested folder's files are listed once and put into the
 * shadow index as ordinary files. From then on git sees index entries under that folder and walks
 * into it like any other folder, so later checkpoints need no special handling.
 */

export type NestedFiles = {
  /** Workspace-relative posix paths of the files (and symlinks) to stage. */
  files: string[];
  /** Files left out for being larger than the limit. */
  large: string[];
};

const prunedFolders = new Set<string>(heavyDirectories.filter((dir) => !dir.includes("/")));

/**
 * Every file under a nested repository, skipping `.git` entries, heavy folders (so a vendored
 * project's node_modules is never walked) and files over `maxFileBytes`.
 * The caller still filters the list through git's ignore rules.
 */
export async function listNestedFiles(workTree: string, folder: string, maxFileBytes: number): Promise<NestedFiles> {
  const result: NestedFiles = { files: [], large: [] };
  const walk = async (relative: string): Promise<void> => {
    let entries;
    try {
      // Names as bytes: one that is not UTF-8 is staged under its own name (see disk/byte-names.ts).
      entries = await readdir(fsName(path.join(workTree, relative)), { withFileTypes: true, encoding: "buffer" });
    } catch {
      return; // vanished or unreadable: git would skip it too
    }
    for (const entry of entries) {
      const name = decodeName(entry.name);
      if (name === ".git") continue;
      const child = `${relative}/${name}`;
      if (entry.isDirectory()) {
        if (!prunedFolders.has(name)) await walk(child);
      } else if (entry.isSymbolicLink()) {
        result.files.push(child);
      } else if (entry.isFile()) {
        await classifyFile(workTree, child, maxFileBytes, result);
      }
    }
  };
  await walk(folder);
  return result;
}

async function classifyFile(workTree: string, relative: string, maxFileBytes: number, into: NestedFiles): Promise<void> {
  const absolute = fsName(path.join(workTree, relative));
  try {
    const stats = await lstat(absolute);
    if (stats.size > maxFileBytes) into.large.push(relative);
    else into.files.push(relative);
  } catch {
    // Gone since the folder was read.
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}
