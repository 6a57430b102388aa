import type { CommandView } from "./risk-checks.js";

/**
 * git subcommands that print file content from the repository's object store: history, the index,
 * stashes. The sandbox masks an ignored file in the working tree, but a copy committed earlier is
 * still in `.git/objects`, where `git show HEAD:.env` finds it.
 */
const printsStoredContent = new Set([
  "show",
  "cat-file",
  "diff",
  "difftool",
  "grep",
  "archive",
  "blame",
  "annotate",
  "format-patch",
  "bundle",
  "stash",
  "fast-export",
  "notes",
  "range-diff",
]);

/** Subcommands that list commits and print content only when asked for patches or searches. */
const listsCommits = new Set(["log", "whatchanged", "reflog", "shortlog"]);
const patchShort = /^-[a-zA-Z]*[puLSG]/;
const patchLong = /^--(patch|patch-with-stat|patch-with-raw|word-diff|color-words|cc|textconv|ext-diff|pickaxe|find-object|full-diff|raw)/;

/** Options of git itself that take a value, so the subcommand is found after them. */
const gitValueOptions = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"]);

/** Whether a git command can print content stored in the repository (not only the working tree). */
export function readsGitObjects(view: CommandView): boolean {
  if (view.name !== "git") return false;
  for (let i = 0; i < view.args.length; i++) {
    const arg = view.args[i];
    if (arg === undefined) return true; // a computed subcommand could be any of them
    if (gitValueOptions.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith("-")) continue;
    if (listsCommits.has(arg)) return view.args.slice(i + 1).some((a) => a === undefined || patchShort.test(a) || patchLong.test(a));
    return printsStoredContent.has(arg);
  }
  return false;
}
