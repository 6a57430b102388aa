import { existsSync } from "node:fs";
import path from "node:path";
import { hasExactOption, hasOption, operands } from "./option-match.js";
import type { CommandView, RiskContext } from "./risk-checks.js";

/** git commands that discard work, lose commits or publish them (the git row of risk-checks.ts). */
const gitOptionsWithValue = ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path", "--super-prefix"];

export function git({ args }: CommandView, context: RiskContext): string | undefined {
  const sub = operands(args, gitOptionsWithValue)[0];
  if (sub === undefined) return undefined;
  if (sub.value === undefined) return "runs a git subcommand computed at run time";
  const rest = args.slice(sub.index + 1);
  const has = (short: string, long: readonly string[] = []): boolean => hasOption(rest, short, long);
  const restOperands = operands(rest).map((o) => o.value);
  switch (sub.value) {
    case "push":
      return "git push publishes commits to a remote";
    case "reset":
      return has("", ["--hard", "--merge"]) ? "git reset --hard discards uncommitted changes" : undefined;
    case "clean":
      return hasExactOption(rest, "n", ["--dry-run"]) ? undefined : "git clean deletes untracked files";
    case "checkout":
      if (has("B")) return "git checkout -B resets a branch that may hold other commits";
      return checkoutDiscards(rest, context) ? "git checkout of paths discards uncommitted changes" : undefined;
    case "restore":
      return hasExactOption(rest, "S", ["--staged"]) && !has("W", ["--worktree"]) ? undefined : "git restore discards uncommitted changes";
    case "switch":
      return has("fC", ["--force", "--discard-changes", "--force-create"]) ? "git switch --discard-changes/-C discards changes or resets a branch" : undefined;
    case "branch":
      // -D, -d -f, -f (reset an existing branch), -M/-C (overwrite one): a branch's commits can be lost.
      return has("DfMC", ["--force"]) ? "git branch -D/-f deletes or overwrites a branch that may not be merged" : undefined;
    case "stash":
      return restOperands[0] === "drop" || restOperands[0] === "clear" ? "git stash drop/clear deletes stashed changes" : undefined;
    case "rm":
      // Like rm: a named file is restorable (git refuses one with changes), -r/-f are not; --cached leaves the files.
      return has("rf", ["--recursive", "--force"]) && !hasExactOption(rest, "", ["--cached"]) ? "git rm -r/-f deletes files, changed ones included" : undefined;
    case "filter-branch":
    case "filter-repo":
      return "rewrites git history";
    case "update-ref":
    case "symbolic-ref":
    case "replace":
      return `git ${sub.value} moves or deletes references, which can lose commits`;
    case "reflog":
      return restOperands[0] === "expire" || restOperands[0] === "delete" ? "git reflog expire/delete drops the record that recovers lost commits" : undefined;
    case "gc":
      return has("", ["--prune"]) ? "git gc --prune deletes unreachable commits" : undefined;
    case "prune":
      return hasExactOption(rest, "n", ["--dry-run"]) ? undefined : "git prune deletes unreachable commits";
    case "worktree":
      return restOperands[0] === "remove" || restOperands[0] === "prune" ? `git worktree ${restOperands[0]} deletes a worktree` : undefined;
    case "tag":
      return has("df", ["--delete", "--force"]) ? "git tag -d/-f deletes or moves a tag" : undefined;
    case "checkout-index":
      return has("f", ["--force"]) ? "git checkout-index -f overwrites changed files" : undefined;
    case "read-tree":
      return has("u", ["--reset"]) ? "git read-tree -u/--reset overwrites the working tree" : undefined;
    default:
      // An alias (`git co HEAD f` with alias.co=checkout) or a git-* program on PATH: what it runs is not on the line.
      return gitCommands.has(sub.value) ? undefined : `git ${sub.value} is not a git command Cairn knows: an alias or an extension, which it cannot check`;
  }
}

/** git's own commands (git --list-cmds=main,others as of 2.47) and git-lfs. */
const gitCommands = new Set(
  `add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap
  check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree config
  count-objects credential credential-cache credential-store daemon describe diagnose diff diff-files diff-index diff-tree
  difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck
  fsck-objects gc get-tar-commit-id grep gui hash-object help hook http-backend http-fetch http-push imap-send index-pack init
  init-db instaweb interpret-trailers last-modified lfs log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge
  merge-base merge-file merge-index merge-one-file merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes
  pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase receive-pack reflog
  refs remote repack replace replay repo request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack
  shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule subtree switch
  symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack var
  verify-commit verify-pack verify-tag version whatchanged worktree write-tree`.split(/\s+/),
);

const checkoutWithValue = ["-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"];

/**
 * `git checkout` takes a branch or paths, and the same words read both ways: `git checkout main`
 * switches, `git checkout HEAD f`, `git checkout -- f` and `git checkout f` (a file, no branch of
 * that name) overwrite f with a stored copy. It discards when it is forced, when it names paths
 * (after a revision, after --, --ours/--theirs, --patch, a pathspec file), or when its only
 * operand is a path that exists in the workspace or a pathspec (`:/`, `*.ts`).
 */
function checkoutDiscards(rest: readonly (string | undefined)[], context: RiskContext): boolean {
  if (hasOption(rest, "fp", ["--force", "--patch", "--ours", "--theirs", "--pathspec-from-file", "--merge"]) || rest.includes("--")) return true;
  if (hasExactOption(rest, "b", ["--orphan"])) return false; // a new branch (at a start point): no paths
  const words = operands(rest, checkoutWithValue).map((o) => o.value);
  if (words.length > 1) return true;
  const [only] = words;
  if (only === undefined) return words.length === 1; // computed: could be a path
  if (only === "-" || only.startsWith("@{")) return false;
  return only === "." || only.startsWith(":") || /[*?[]/.test(only) || (!context.uncertainCwd && existsSync(path.resolve(context.cwd, only)));
}
