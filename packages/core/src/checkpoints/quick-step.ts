import { readFile } from "node:fs/promises";
import path from "node:path";
import { GitError } from "./git.js";
import type { GitShell } from "./git-shell.js";
import { parseRawDiff, type Change } from "./shadow-repo.js";

/**
 * A step's own edits recorded in one call of the checkpoints' shell (see git-shell.ts): `git add -A`
 * of the paths it touched (ignored ones are left out by git, exit 1), `write-tree`, and only when
 * the tree differs from the latest checkpoint's: `commit-tree` and `update-ref` (against the
 * expected old value, as every checkpoint does), with `diff-tree` (what changed) beside them into a
 * file. Output: the tree on its own line, then "commit <hash>" when one was made.
 */
export const quickStepFunction = `
cairn_step() {
  base=$1 parent=$2 message=$3 difffile=$4
  shift 4
  git add -A -- "$@"
  code=$?
  [ "$code" -le 1 ] || return "$code"
  tree=$(git write-tree) || return $?
  printf '%s\\n' "$tree"
  [ "$tree" = "$base" ] && return 0
  git diff-tree -r -z --raw --no-renames "$base" "$tree" > "$difffile" &
  diffing=$!
  if [ -n "$parent" ]; then
    commit=$(git commit-tree "$tree" -p "$parent" -m "$message") || return $?
  else
    commit=$(git commit-tree "$tree" -m "$message") || return $?
  fi
  git update-ref HEAD "$commit" "$parent" || return $?
  wait "$diffing" || return $?
  printf 'commit %s\\n' "$commit"
}
`;

/**
 * Two steps of every checkpoint, each one call of the shell instead of two git round trips (each
 * waits its turn on a main thread that may be busy with the model's reply):
 * - `cairn_tree BASE`: `write-tree`, the tree on its own line, then (when it differs from BASE) the
 *   raw diff between them, NUL-separated.
 * - `cairn_commit TREE PARENT MESSAGE`: `commit-tree` and `update-ref` (against the expected old
 *   value; none when PARENT is empty), then the commit on its own line.
 */
export const treeAndCommitFunctions = `
cairn_tree() {
  tree=$(git write-tree) || return $?
  printf '%s\\n' "$tree"
  [ "$tree" = "$1" ] && return 0
  git diff-tree -r -z --raw --no-renames "$1" "$tree"
}
cairn_commit() {
  if [ -n "$2" ]; then
    commit=$(git commit-tree "$1" -p "$2" -m "$3") || return $?
  else
    commit=$(git commit-tree "$1" -m "$3") || return $?
  fi
  git update-ref HEAD "$commit" "$2" || return $?
  printf '%s\\n' "$commit"
}
`;

export type QuickStep = { tree: string; commit?: string; changes: Change[] };

/** `paths`: workspace-relative, checked by `quickEligible`; `head`: the latest checkpoint. */
export async function quickStep(
  shell: GitShell,
  gitDir: string,
  paths: readonly string[],
  head: { commit: string; tree: string },
  message: string,
): Promise<QuickStep> {
  const diffFile = path.join(gitDir, "cairn-step.diff");
  const args = [head.tree, head.commit, message || "checkpoint", diffFile, ...paths.map((file) => `:(literal)${file}`)];
  const result = await shell.call("cairn_step", args);
  if (result.code !== 0) throw new GitError(["add/commit of a step", ...paths.slice(0, 3)], result.code, result.stderr, gitDir);
  const [tree = "", committed = ""] = result.stdout.toString("utf8").split("\n");
  if (tree === head.tree) return { tree, changes: [] };
  const commit = /^commit ([0-9a-f]+)$/.exec(committed)?.[1];
  if (!commit) throw new GitError(["add/commit of a step"], 0, `the step wrote tree ${tree} but no commit`, gitDir);
  return { tree, commit, changes: parseRawDiff(await readFile(diffFile)) };
}
