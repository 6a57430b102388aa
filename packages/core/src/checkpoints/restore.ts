import { lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { IgnoreRules } from "../policy/ignore-rules.js";
import { decodeName, encodeName, fsName, lossyName } from "../disk/byte-names.js";
import { joinNul, splitNul } from "./git.js";
import { parseRawDiff, type Change, type ShadowRepo } from "./shadow-repo.js";

/** A file the restore would change although no step of Cairn's changed it since the checkpoint (the person did, or another program). */
export type UntouchedFile = { path: string; change: "remove" | "overwrite" | "recreate" };

export type RestoreChoice = {
  /**
   * Paths Cairn's own steps changed after the checkpoint; every other path that differs is
   * "untouched". Undefined: no task history is known, every path counts as Cairn's.
   */
  cairnPaths?: ReadonlySet<string>;
  /** What to do with untouched files: leave them as they are now (the default), or restore them too. */
  untouched?: "keep" | "restore";
};

export type RestorePlan = {
  /** The tree to check out: the checkpoint's, minus the paths left as they are. */
  tree: string;
  /** What the restore changes, as a diff from the files now to `tree`. */
  changes: Change[];
  /** Files no step of Cairn's changed since the checkpoint, kept or restored as chosen. */
  untouched: UntouchedFile[];
  /** Paths never touched by a restore: ignored or excluded now, or with something unrecorded in the way. */
  leftAlone: string[];
};

export type RestoreResult = {
  /** Files written back: modified since the checkpoint, or deleted since. */
  restored: number;
  /** Files created since the checkpoint, now removed. */
  removed: number;
  untouched: UntouchedFile[];
  /** Whether the untouched files were restored (else they were kept as they are). */
  untouchedRestored: boolean;
  leftAlone: string[];
};

/**
 * What putting the workspace back to `commit` would change, when the index holds the files as they
 * are now (`currentTree`).
 *
 * Paths are left as they are (taken out of the plan) when:
 * - .cairnignore matches them, by the name written or the real path: they are never checkpointed,
 *   so a restore neither writes nor removes them;
 * - the checkpoint has them, the index does not and something is on disk there now: excluded now
 *   (a new ignore rule, over the size limit, unreadable), or a folder holding files the checkpoints
 *   never recorded (ignored files, a nested .git), or an unrecorded file or link on the way to them.
 *   `read-tree -u --reset` would delete such things without a trace;
 * - no step of Cairn's changed them and the caller keeps untouched files.
 *
 * A symlink in the workspace is never written through: git replaces a recorded link on the way to
 * a file by a real folder, and an unrecorded one keeps the path out of the plan.
 */
export async function planRestore(repo: ShadowRepo, currentTree: string, commit: string, choice: RestoreChoice = {}): Promise<RestorePlan> {
  const { workTree } = repo.location;
  const all = parseRawDiff(
    (await repo.git(["diff-tree", "-r", "-z", "--raw", "--no-renames", currentTree, `${commit}^{tree}`])).stdout,
  );
  const current = new CurrentFiles(repo, currentTree);
  const ignoreRules = new IgnoreRules(workTree);
  const leftAlone = new Set<string>();
  const candidates: string[] = [];
  for (const change of all) {
    if (ignoreRules.ignores(lossyName(path.join(workTree, change.path)))) {
      leftAlone.add(change.path);
      continue;
    }
    if (change.status !== "A") continue;
    const way = await pathToWrite(workTree, change.path, current);
    if (way === "blocked") leftAlone.add(change.path);
    // git's ignore rules cannot be asked about a path under a link; the link is recorded and goes.
    else if (way === "clear") candidates.push(change.path);
  }
  for (const file of await repo.ignoredAmong(candidates)) leftAlone.add(file);

  const untouched: UntouchedFile[] = [];
  const keep = new Set(leftAlone);
  const cairnPaths = choice.cairnPaths;
  for (const change of all) {
    if (keep.has(change.path) || cairnPaths === undefined || cairnPaths.has(change.path)) continue;
    untouched.push({ path: change.path, change: change.status === "A" ? "recreate" : change.status === "D" ? "remove" : "overwrite" });
    if (choice.untouched !== "restore") keep.add(change.path);
  }
  closeOverFolders(all, keep);
  const untouchedPaths = new Set(untouched.map((file) => file.path));
  for (const change of all) if (keep.has(change.path) && !untouchedPaths.has(change.path)) leftAlone.add(change.path);

  const changes = all.filter((change) => !keep.has(change.path));
  const tree = keep.size === 0 ? `${commit}^{tree}` : await mixedTree(repo, commit, all.filter((change) => keep.has(change.path)));
  return { tree, changes, untouched, leftAlone: [...leftAlone].sort() };
}

/** Moves the index and the files to the plan's tree: changed files rewritten, removed ones deleted, equal ones not touched. */
export async function applyRestore(repo: ShadowRepo, plan: RestorePlan): Promise<{ restored: number; removed: number }> {
  if (plan.changes.length === 0) return { restored: 0, removed: 0 };
  await repo.git(["read-tree", "-u", "--reset", plan.tree]);
  const removed = plan.changes.filter((change) => change.status === "D").length;
  return { restored: plan.changes.length - removed, removed };
}

/**
 * A file or link kept where it is drags along every file the restore would create below it or
 * above it: keeping a link `src` while creating `src/a.ts` (or the reverse) would ask for a file and
 * a folder of the same name. Not creating a path conflicts with nothing.
 */
function closeOverFolders(changes: readonly Change[], keep: Set<string>): void {
  const keptFiles = changes.filter((change) => change.status !== "A" && keep.has(change.path)).map((change) => change.path);
  if (keptFiles.length === 0) return;
  const kept = new Set(keptFiles);
  const keptFolders = new Set(keptFiles.flatMap(ancestors));
  for (const change of changes) {
    if (change.status !== "A" || keep.has(change.path)) continue;
    if (keptFolders.has(change.path) || ancestors(change.path).some((folder) => kept.has(folder))) keep.add(change.path);
  }
}

function ancestors(file: string): string[] {
  const parts = file.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** The checkpoint's tree with some paths as they are now, built in a throwaway index. */
async function mixedTree(repo: ShadowRepo, commit: string, kept: readonly Change[]): Promise<string> {
  const indexFile = path.join(repo.location.gitDir, "cairn-restore-index");
  const options = { indexFile };
  await rm(indexFile, { force: true });
  try {
    await repo.git(["-c", "core.splitIndex=false", "read-tree", commit], options);
    await repo.git(["-c", "core.splitIndex=false", "update-index", "--force-remove", "-z", "--stdin"], {
      ...options,
      input: joinNul(kept.map((change) => change.path)),
    });
    const present = kept.filter((change) => change.status !== "A");
    if (present.length > 0) {
      const entries = Buffer.concat(present.flatMap((change) => [Buffer.from(`${change.oldMode} ${change.oldHash}\t`), encodeName(change.path), Buffer.from([0])]));
      await repo.git(["-c", "core.splitIndex=false", "update-index", "--add", "--replace", "-z", "--index-info"], { ...options, input: entries });
    }
    return (await repo.git(["-c", "core.splitIndex=false", "write-tree"], options)).stdout.toString("utf8").trim();
  } finally {
    await rm(indexFile, { force: true });
  }
}

/** The paths recorded now (the current tree), listed once and only when needed. */
class CurrentFiles {
  private paths: Set<string> | undefined;
  constructor(
    private readonly repo: ShadowRepo,
    private readonly tree: string,
  ) {}

  async has(file: string): Promise<boolean> {
    this.paths ??= new Set(splitNul((await this.repo.git(["ls-tree", "-r", "-z", "--name-only", this.tree])).stdout));
    return this.paths.has(file);
  }
}

/**
 * Whether `file` (absent from the current tree) can be written: "blocked" when that would destroy
 * something no checkpoint holds (an unrecorded file or link where a folder on the way should be,
 * anything at the path itself, a folder there holding unrecorded entries); "replaces-link" when a
 * recorded file or link on the way goes first (it is in the plan as removed).
 */
async function pathToWrite(workTree: string, file: string, current: CurrentFiles): Promise<"clear" | "blocked" | "replaces-link"> {
  for (const folder of ancestors(file)) {
    const stats = await lstat(fsName(path.join(workTree, folder))).catch(() => undefined);
    if (!stats) return "clear"; // nothing there from here down
    if (stats.isDirectory()) continue;
    return (await current.has(folder)) ? "replaces-link" : "blocked";
  }
  const stats = await lstat(fsName(path.join(workTree, file))).catch(() => undefined);
  if (!stats) return "clear";
  if (!stats.isDirectory()) return "blocked";
  return (await holdsUnrecorded(workTree, file, current)) ? "blocked" : "clear";
}

async function holdsUnrecorded(workTree: string, folder: string, current: CurrentFiles): Promise<boolean> {
  const entries = await readdir(fsName(path.join(workTree, folder)), { withFileTypes: true, encoding: "buffer" }).catch(() => undefined);
  if (!entries) return true; // unreadable: do not guess
  for (const entry of entries) {
    const child = `${folder}/${decodeName(entry.name)}`;
    if (entry.isDirectory() ? await holdsUnrecorded(workTree, child, current) : !(await current.has(child))) return true;
  }
  return false;
}
