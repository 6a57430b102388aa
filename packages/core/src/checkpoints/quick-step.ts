import { runGitScript } from "./git.js";
import { parseRawDiff, type Change, type ShadowRepo } from "./shadow-repo.js";

/**
 * A step's own edits recorded in one process: `git add -A` of the paths it touched (ignored ones are
 * left out by git, exit 1), `write-tree`, and only when the tree differs from the latest checkpoint's:
 * `diff-tree` (what changed), `commit-tree` and `update-ref` (against the expected old value, as
 * every checkpoint does). Output: the tree on its own line; when committed, the raw diff and then
 * "\0commit <hash>\n".
 *
 * Five git commands from the agent's own process cost five forks of a large process (~3 ms of its
 * main thread each); from this small shell they cost little more than git's own work.
 */
const script = `
base=$1 parent=$2 message=$3
shift 3
git add -A -- "$@"
code=$?
[ "$code" -le 1 ] || exit "$code"
tree=$(git write-tree) || exit $?
printf '%s\\n' "$tree"
[ "$tree" = "$base" ] && exit 0
git diff-tree -r -z --raw --no-renames "$base" "$tree" || exit $?
if [ -n "$parent" ]; then
  commit=$(git commit-tree "$tree" -p "$parent" -m "$message") || exit $?
else
  commit=$(git commit-tree "$tree" -m "$message") || exit $?
fi
git update-ref HEAD "$commit" "$parent" || exit $?
printf '\\0commit %s\\n' "$commit"
`;

export type QuickStep = { tree: string; commit?: string; changes: Change[] };

/** `paths`: workspace-relative, checked by `quickEligible`; `head`: the latest checkpoint, if any. */
export async function quickStep(repo: ShadowRepo, paths: readonly string[], head: { commit: string; tree: string } | undefined, message: string, baseTree: string): Promise<QuickStep> {
  const { stdout } = await runGitScript(repo.location, script, [baseTree, head?.commit ?? "", message || "checkpoint", ...paths.map((file) => `:(literal)${file}`)]);
  const firstLine = stdout.indexOf(0x0a);
  const tree = stdout.subarray(0, firstLine).toString("utf8").trim();
  if (tree === baseTree) return { tree, changes: [] };
  const marker = stdout.lastIndexOf("\0commit ");
  if (marker < 0) throw new Error(`the checkpoint script wrote tree ${tree} but no commit`);
  const commit = stdout.subarray(marker + "\0commit ".length).toString("utf8").trim();
  return { tree, commit, changes: parseRawDiff(stdout.subarray(firstLine + 1, marker)) };
}
