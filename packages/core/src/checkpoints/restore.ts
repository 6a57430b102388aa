import { lstat, rm } from "node:fs/promises";
import path from "node:path";
import { emptyTree, joinNul, splitNul } from "./git.js";
import { parseRawDiff, type ShadowRepo } from "./shadow-repo.js";

export type RestoreResult = {
  /** Files written back: modified since the checkpoint, or deleted since. */
  restored: number;
  /** Files created since the checkpoint, now removed. */
  removed: number;
};

/**
 * Puts the workspace back the way it was at `commit`.
 *
 * The current state is staged first, so the index lists exactly the files git sees now; then
 * `read-tree -u --reset` moves index and work tree to the checkpoint in one pass: changed files are
 * rewritten, files the checkpoint lacks are deleted, identical files are not touched.
 *
 * One class of file needs care: present in the checkpoint, absent from the index now. Most were
 * deleted since and come back. But a file that is on disk and still not in the index is excluded
 * now (a new .gitignore/.cairnignore rule, over the size limit, unreadable), and excluded files are
 * never touched: those paths are taken out of the tree before it is checked out.
 */
export async function restoreCheckpoint(repo: ShadowRepo, commit: string): Promise<RestoreResult> {
  const head = await repo.head();
  await repo.stage(head?.tree ?? emptyTree);

  const onlyInCheckpoint = splitNul(
    (await repo.git(["diff-index", "--cached", "-z", "--name-only", "--no-renames", "--diff-filter=D", commit])).stdout,
  );
  const ignored = await repo.ignoredAmong(onlyInCheckpoint);
  const leaveAlone: string[] = [];
  for (const file of onlyInCheckpoint) {
    if (ignored.has(file) || (await fileInWorkspace(repo.location.workTree, file))) leaveAlone.push(file);
  }
  const target = leaveAlone.length === 0 ? `${commit}^{tree}` : await treeWithout(repo, commit, leaveAlone);

  const changes = parseRawDiff((await repo.git(["diff-index", "--cached", "-z", "--raw", "--no-renames", target])).stdout);
  if (changes.length === 0) return { restored: 0, removed: 0 };
  await repo.git(["read-tree", "-u", "--reset", target]);
  const removed = changes.filter((change) => change.status === "A").length;
  return { restored: changes.length - removed, removed };
}

/** The checkpoint's tree minus some paths, built in a throwaway index. */
async function treeWithout(repo: ShadowRepo, commit: string, paths: readonly string[]): Promise<string> {
  const indexFile = path.join(repo.location.gitDir, "cairn-restore-index");
  const options = { indexFile };
  await rm(indexFile, { force: true });
  try {
    await repo.git(["-c", "core.splitIndex=false", "read-tree", commit], options);
    await repo.git(["-c", "core.splitIndex=false", "update-index", "--force-remove", "-z", "--stdin"], {
      ...options,
      input: joinNul(paths),
    });
    return (await repo.git(["-c", "core.splitIndex=false", "write-tree"], options)).stdout.toString("utf8").trim();
  } finally {
    await rm(indexFile, { force: true });
  }
}

/** A file (or symlink) at that path now; a folder there is tracked content, replaced by the restore. */
async function fileInWorkspace(workTree: string, file: string): Promise<boolean> {
  const stats = await lstat(path.join(workTree, file)).catch(() => undefined);
  return stats !== undefined && !stats.isDirectory();
}
