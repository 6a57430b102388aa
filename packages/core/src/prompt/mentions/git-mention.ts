import path from "node:path";
import { type HostGit, openHostGit } from "../../host-git/index.js";
import type { IgnoreRules } from "../../policy/ignore-rules.js";
import { formatBytes } from "../../tools/text-bytes.js";
import { attr, type Expansion, type MentionLimits, refused } from "./limits.js";
import { runCapped } from "./run-capped.js";

/** git's hash of the empty tree: the base to diff against before the first commit. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/** Paths named in a git mention join the paths in play (for rules' `paths:`), up to this many. */
const MAX_MENTIONED = 200;

export type GitContext = { cwd: string; ignore: IgnoreRules; limits: MentionLimits; signal?: AbortSignal };

/**
 * Both git mentions stay inside the boundary: `--relative` limits the diff to the workspace
 * (which may be a folder inside a larger repository) and files .cairnignore blocks are
 * excluded by pathspec, with a note saying how many were hidden. git runs on the host here, so
 * through host-git: the repository's config names no program that runs (fsmonitor, filters,
 * diff drivers, hooks).
 */
export async function expandGitChanges(raw: string, context: GitContext): Promise<Expansion> {
  const ctx = open(context);
  if (typeof ctx === "string") return refused(raw, ctx === "" ? "the workspace is not in a git repository." : ctx);
  if (!(await isRepository(ctx))) return refused(raw, "the workspace is not in a git repository.");
  const head = await git(ctx, ["rev-parse", "--verify", "--quiet", "HEAD"]);
  const base = head.exitCode === 0 ? "HEAD" : EMPTY_TREE;

  const changed = parseNameStatus((await git(ctx, ["diff", base, "--relative", "--name-status", "-z"])).output);
  const untracked = splitZ((await git(ctx, ["ls-files", "--others", "--exclude-standard", "-z"])).output);
  const isBlocked = (c: Change) => blocked(ctx, c.path) || (c.from !== undefined && blocked(ctx, c.from));
  const visibleChanged = changed.filter((c) => !isBlocked(c));
  const hiddenPaths = changed.filter(isBlocked).flatMap((c) => (c.from === undefined ? [c.path] : [c.path, c.from]));
  const visibleUntracked = untracked.filter((p) => !blocked(ctx, p));
  const hidden = changed.length - visibleChanged.length + (untracked.length - visibleUntracked.length);

  const lines: string[] = [];
  if (visibleChanged.length === 0 && visibleUntracked.length === 0) lines.push("The working tree is clean: no changes since the last commit.");
  if (visibleChanged.length > 0) {
    lines.push(`Changed files (against ${base === "HEAD" ? "HEAD" : "an empty tree: there are no commits yet"}):`);
    for (const c of visibleChanged) lines.push(`${c.status} ${c.from === undefined ? "" : `${c.from} -> `}${c.path}`);
  }
  if (visibleUntracked.length > 0) {
    lines.push("Untracked files:");
    for (const p of visibleUntracked) lines.push(`?? ${p}`);
  }
  const notes: string[] = [];
  if (hidden > 0) lines.push(`[${hidden} changed file${hidden === 1 ? " is" : "s are"} hidden: blocked by ${ctx.ignore.files.join(" and ")}.]`);

  if (visibleChanged.length > 0) {
    const diff = await git(ctx, ["diff", base, "--relative", "--no-color", "--", ".", ...excludes(hiddenPaths)], true);
    lines.push("", diff.output.trimEnd());
    if (diff.cut) {
      lines.push(`[The diff is cut here at ${formatBytes(ctx.limits.gitBytes)}; run git diff on single files for the rest.]`);
      notes.push(`${raw}: the diff was cut at ${formatBytes(ctx.limits.gitBytes)}.`);
    }
  }
  const mentioned = [...visibleChanged.map((c) => c.path), ...visibleUntracked].slice(0, MAX_MENTIONED);
  return { block: `<git_working_state>\n${lines.join("\n")}\n</git_working_state>`, notes, mentioned };
}

/** `@a1b2c3d`: the commit's message, stat and patch (within the workspace, minus blocked files). */
export async function expandCommit(raw: string, hash: string, context: GitContext): Promise<Expansion> {
  const ctx = open(context);
  if (typeof ctx === "string") return refused(raw, ctx === "" ? "the workspace is not in a git repository, so it cannot be a commit." : ctx);
  if (!(await isRepository(ctx))) return refused(raw, "the workspace is not in a git repository, so it cannot be a commit.");
  const resolved = await git(ctx, ["rev-parse", "--verify", "--quiet", `${hash}^{commit}`]);
  if (resolved.exitCode !== 0) return refused(raw, `no commit ${hash} in this repository.`);
  const full = resolved.output.trim();
  const files = splitZ((await git(ctx, ["show", "--relative", "--name-only", "--format=", "-z", full])).output);
  const blockedFiles = files.filter((p) => blocked(ctx, p));
  const shown = await git(ctx, ["show", "--stat", "--patch", "--relative", "--no-color", full, "--", ".", ...excludes(blockedFiles)], true);
  const lines = [shown.output.trimEnd()];
  const notes: string[] = [];
  if (shown.cut) {
    lines.push(`[The commit is cut here at ${formatBytes(ctx.limits.gitBytes)}; run git show ${full.slice(0, 12)} -- <file> for the rest.]`);
    notes.push(`${raw}: the commit was cut at ${formatBytes(ctx.limits.gitBytes)}.`);
  }
  if (blockedFiles.length > 0) lines.push(`[${blockedFiles.length} file${blockedFiles.length === 1 ? " is" : "s are"} hidden: blocked by ${ctx.ignore.files.join(" and ")}.]`);
  const mentioned = files.filter((p) => !blocked(ctx, p)).slice(0, MAX_MENTIONED);
  return { block: `<git_commit hash="${attr(full)}">\n${lines.join("\n")}\n</git_commit>`, notes, mentioned };
}

type OpenedContext = GitContext & { host: HostGit };

/** The context with the repository's git prepared; else why not ("" when there is no repository). */
function open(ctx: GitContext): OpenedContext | string {
  const opened = openHostGit(ctx.cwd, { timeoutMs: ctx.limits.gitTimeoutMs });
  if (opened.kind === "none") return "";
  if (opened.kind === "refused") return opened.reason;
  return { ...ctx, host: opened.git };
}

async function isRepository(ctx: OpenedContext): Promise<boolean> {
  const probe = await git(ctx, ["rev-parse", "--is-inside-work-tree"]);
  return probe.exitCode === 0 && probe.output.trim() === "true";
}

function git(ctx: OpenedContext, args: string[], capped = false) {
  return runCapped("git", ctx.host.argv(args), {
    cwd: ctx.cwd,
    env: ctx.host.env,
    timeoutMs: ctx.limits.gitTimeoutMs,
    maxBytes: capped ? ctx.limits.gitBytes : 16 * 1024 * 1024,
    stopWhenFull: capped,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
}

function blocked(ctx: GitContext, relative: string): boolean {
  return ctx.ignore.ignores(path.join(ctx.cwd, relative));
}

/** Pathspecs leaving out the given workspace-relative files, taken literally. */
function excludes(paths: string[]): string[] {
  return paths.map((p) => `:(exclude,literal)${p}`);
}

function splitZ(output: string): string[] {
  return output.split("\0").filter((p) => p !== "");
}

type Change = { status: string; path: string; from?: string };

/** `git diff --name-status -z`: status, then one path (two for renames and copies: from, to). */
function parseNameStatus(output: string): Change[] {
  const fields = splitZ(output);
  const entries: Change[] = [];
  for (let i = 0; i < fields.length; i++) {
    const status = fields[i] as string;
    if (status.startsWith("R") || status.startsWith("C")) {
      entries.push({ status: status[0] as string, from: fields[i + 1] ?? "", path: fields[i + 2] ?? "" });
      i += 2;
    } else {
      entries.push({ status, path: fields[i + 1] ?? "" });
      i += 1;
    }
  }
  return entries;
}
