import { realpathSync } from "node:fs";
import { mkdir, realpath, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CheckpointError, CheckpointStoreDamagedError, damageReason } from "./errors.js";
import { checkGitVersion, emptyTree, GitError, splitNul } from "./git.js";
import { withOwnership } from "./locks.js";
import { applyRestore, planRestore, type RestoreResult, type UntouchedFile } from "./restore.js";
import { defaultMaxFileBytes, shadowFolderFor, ShadowRepo, type Change } from "./shadow-repo.js";
import { beforeRestoreLabel, isCairnStep } from "./steps.js";
import { quickStep } from "./quick-step.js";
import { FirstIndexUnderWay, indexerEnded, type Indexer } from "./first-index.js";
import { prepareStage, quickEligible } from "./stage.js";
import { ignoreFileNames } from "../policy/ignore-rules.js";
import { decodeName, shownName } from "../disk/byte-names.js";

export type CheckpointOptions = {
  /** The folder to checkpoint. */
  workspace: string;
  /** Where shadow repositories live; the host passes `CAIRN_HOME/checkpoints`. */
  baseDir: string;
  /** Files larger than this are left out of checkpoints (default 5 MB). */
  maxFileBytes?: number;
  /**
   * A workspace with more files than this gets its first checkpoint only when a step is about to
   * change something (`step` with `mayDefer`), not at the start of a task (default 200,000).
   */
  lazyAboveFiles?: number;
};

/** Above this many files, a workspace's first checkpoint waits for the first change (see `lazyAboveFiles`). */
export const defaultLazyAboveFiles = 200_000;

export type StepOptions = {
  /**
   * The paths the step may have changed (absolute, or relative to the workspace); only they are
   * looked at. Omitted: anything may have changed (a command), and the whole workspace is.
   */
  paths?: readonly string[];
  /** List the changes since this checkpoint (the task's last) instead of since the store's latest. */
  since?: string;
  /** A first checkpoint of a workspace over `lazyAboveFiles` is put off: the result says so. */
  mayDefer?: boolean;
  /** One line for the person while many files are indexed ("checkpoints: indexing 100,000 files…"). */
  onNotice?: (message: string) => void;
  /**
   * The step waits for a first index that a detached git process builds (see first-index.ts): the
   * caller may let it finish without this step, which then fails with `IndexingLeftRunning`.
   */
  onIndexingAway?: (indexing: IndexingAway) => void;
};

/** A step waiting for a detached git building the workspace's first index. */
export type IndexingAway = {
  /** The git process building it. */
  pid: number;
  files: number;
  /**
   * Stop waiting: the step fails with `IndexingLeftRunning`; the next call on the store, in any
   * process, adopts the index. False when the wait was already over (the step is adopting it).
   */
  letGo(): boolean;
};

/** `path`, as in every path these types report: a name that is not UTF-8 shown with its bytes escaped (`f\xff.txt`). */
export type StepChange = { path: string; status: FileChange["status"] };

export type StepCheckpoint =
  /** `hash` is new, or the latest checkpoint when the files are the same (`created` false). */
  | { kind: "checkpoint"; hash: string; created: boolean; changes: StepChange[] }
  /** The workspace is over `lazyAboveFiles` and has no checkpoint yet. */
  | { kind: "deferred"; files: number };

export type Checkpoint = { hash: string; message: string; time: string };

export type FileChange = {
  path: string;
  status: "added" | "modified" | "deleted";
  /** Lines; 0 and 0 with `binary` for files git cannot diff as text. */
  additions: number;
  deletions: number;
  binary?: boolean;
};

export type CheckpointDiff = { files: FileChange[]; patch: string };

export type RestoreOptions = {
  /**
   * The task's checkpoints after the one restored, oldest first. Files changed only outside Cairn's
   * steps among them are "untouched" (see steps.ts). Without it every file counts as Cairn's.
   */
  laterSteps?: readonly { hash: string; label: string }[];
  /** Untouched files: kept as they are now (the default) or restored too. */
  untouched?: "keep" | "restore";
  /** The label of the checkpoint recording the restored files. */
  afterLabel?: string;
};

export type RestorePreview = {
  /** What the restore would change, untouched files included. */
  files: { path: string; change: "remove" | "overwrite" | "recreate" }[];
  /** Of those, the files no step of Cairn's changed since the checkpoint. */
  untouched: UntouchedFile[];
  /** Paths a restore leaves alone (ignored, excluded, or with unrecorded files in the way). */
  leftAlone: string[];
};

export type RestoreOutcome = RestoreResult & {
  /** The checkpoint of the files just before the restore: restoring it undoes the restore. */
  before: { hash: string };
  /** The checkpoint of the restored files, when anything changed. */
  after?: { hash: string };
};

/** Calls on one shadow repository run one at a time, even across `Checkpoints` objects. */
const queues = new Map<string, Promise<unknown>>();

function serialized<T>(key: string, job: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const result = previous.then(job, job);
  const tail = result.catch(() => {});
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return result;
}

/**
 * Checkpoints of one workspace, kept in a shadow git repository outside it. The workspace's own
 * .git (index, stash, hooks, config) and any nested repositories are never read or written;
 * nothing in the workspace is renamed. History only grows: restoring writes files back and the
 * next `create` records the restored state on top.
 */
export class Checkpoints {
  /** Set once the store is found damaged: every later call fails at once with the same line. */
  private damage: CheckpointStoreDamagedError | undefined;

  private constructor(
    private readonly repo: ShadowRepo,
    private readonly lazyAboveFiles: number,
  ) {}

  /** Opens (creating on first use) the shadow repository of a workspace. */
  static async open(options: CheckpointOptions): Promise<Checkpoints> {
    const workspace = await realWorkspace(options.workspace);
    await mkdir(options.baseDir, { recursive: true });
    const gitDir = shadowFolderFor(await realpath(options.baseDir), workspace);
    const repo = new ShadowRepo({ gitDir, workTree: workspace }, options.maxFileBytes ?? defaultMaxFileBytes);
    await checkGitVersion(() => repo.gitVersion());
    await mkdir(gitDir, { recursive: true });
    const checkpoints = new Checkpoints(repo, options.lazyAboveFiles ?? defaultLazyAboveFiles);
    // Reading the latest checkpoint finds a damaged store now, before a task counts on it; the first
    // step then reads it from the ref file instead of asking git again.
    await checkpoints.run(async () => {
      await repo.ensureInitialized();
      await repo.latest();
    });
    return checkpoints;
  }

  /** The workspace's real path. */
  get workspace(): string {
    return this.repo.location.workTree;
  }

  /** The shadow repository folder. */
  get gitDir(): string {
    return this.repo.location.gitDir;
  }

  /**
   * Records the workspace as it is now. Always makes a checkpoint, even when nothing changed, so
   * every step has one to go back to.
   */
  create(message: string): Promise<{ hash: string; changedFiles: number }> {
    const created = this.run(async () => {
      const made = await this.commitWorkTree(message);
      return { hash: made.hash, changedFiles: made.changedFiles };
    });
    void created.then(() => this.scheduleMaintenance(), () => {});
    return created;
  }

  /**
   * The checkpoint of a task's step. Only the paths the step touched are staged (all of them after
   * a command), and a new checkpoint is made only when the files differ from the latest one;
   * otherwise the latest is returned, so a step that changed nothing costs one `git status` and
   * adds nothing. Nothing is packed here (see `packInBackground`).
   */
  step(message: string, options: StepOptions = {}): Promise<StepCheckpoint> {
    const job = async (): Promise<StepCheckpoint> => {
      const head = await this.repo.latest();
      const made = await this.stageAndCommit(message, head, options);
      if ("deferred" in made) return { kind: "deferred", files: made.deferred };
      let changes = made.changes;
      // Another process's checkpoint came in between: what changed is measured from the caller's own.
      if (options.since !== undefined && options.since !== head?.commit) {
        changes = options.since === made.hash ? [] : await this.repo.changesBetween(await this.repo.resolveCommit(options.since), made.tree);
      }
      return { kind: "checkpoint", hash: made.hash, created: made.hash !== head?.commit, changes: stepChanges(changes) };
    };
    return this.run(job, options.onIndexingAway);
  }

  /** Stages a step (quickly when its paths allow, see quick-step.ts) and commits the tree if it differs from `head`'s; callers hold the lock. */
  private async stageAndCommit(
    message: string,
    head: { commit: string; tree: string } | undefined,
    options: StepOptions,
  ): Promise<{ hash: string; tree: string; changes: Change[] } | { deferred: number }> {
    const base = head?.tree ?? emptyTree;
    const paths = options.paths ? this.stepPaths(options.paths) : undefined;
    const prepared = prepareStage(this.repo);
    if (head && paths && this.repo.shell && !this.repo.shell.busy && quickEligible(this.repo, paths, prepared)) {
      const quick = await quickStep(this.repo.shell, this.gitDir, paths, head, message);
      if (!quick.commit) return { hash: head.commit, tree: quick.tree, changes: [] };
      this.repo.madeLatest({ commit: quick.commit, tree: quick.tree });
      return { hash: quick.commit, tree: quick.tree, changes: quick.changes };
    }
    const stageOptions = {
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      ...(options.mayDefer ? { deferAbove: this.lazyAboveFiles } : {}),
    };
    let staged;
    try {
      staged = await this.repo.stageStep(base, { ...stageOptions, ...(paths ? { paths } : {}) }, prepared);
    } catch (error) {
      // A path git will not look at alone: look at everything instead.
      if (!paths || !(error instanceof GitError) || damageReason(error.stderr) !== undefined || indexTrouble.test(error.stderr)) throw error;
      staged = await this.repo.stageStep(base, stageOptions, prepared);
    }
    if ("deferred" in staged) return staged;
    if (head && staged.tree === head.tree) return { hash: head.commit, tree: head.tree, changes: [] };
    // The list of changes and the commit need only the tree: both run at once.
    const [changes, hash] = await Promise.all([staged.changes(), this.commitTree(staged.tree, head, message)]);
    return { hash, tree: staged.tree, changes };
  }


  /**
   * Starts packing the store's loose objects in a detached, low-priority process when enough have
   * piled up; returns at once. A task calls it when it ends, so packing is never on its path.
   */
  packInBackground(): void {
    try {
      this.repo.packInBackground();
    } catch {
      // Upkeep only saves disk.
    }
  }

  /**
   * A step's paths, relative to the workspace; undefined (look at everything) when one of them could
   * change what git ignores. A path through a symlink is taken as written (the link) and as the file
   * it leads to, which is what the write changed.
   */
  private stepPaths(paths: readonly string[]): string[] | undefined {
    const relative: string[] = [];
    if (paths.some((file) => file.includes("\0"))) return undefined; // no such file: look at everything
    const candidates = paths.flatMap((file) => {
      const absolute = path.resolve(this.workspace, file);
      const real = realPathOfLastExisting(absolute);
      return real === absolute ? [absolute] : [absolute, real];
    });
    for (const file of candidates) {
      const inside = path.relative(this.workspace, file);
      if (inside === "") return undefined;
      if (inside.startsWith("..") || path.isAbsolute(inside)) continue; // outside the workspace: never checkpointed
      const posix = inside.split(path.sep).join("/");
      const parts = posix.split("/");
      if (parts.includes(".git") || parts.at(-1) === ".gitignore" || (ignoreFileNames as readonly string[]).includes(posix)) return undefined;
      relative.push(posix);
    }
    return relative;
  }

  /** Commits a staged tree on top of the latest checkpoint; callers hold the lock. */
  private async commitTree(tree: string, head: { commit: string } | undefined, message: string): Promise<string> {
    const hash = await this.repo.commit(tree, head?.commit, message || "checkpoint");
    this.repo.madeLatest({ commit: hash, tree });
    return hash;
  }

  /** Stages the work tree and commits it on top of the latest checkpoint; callers hold the lock. */
  private async commitWorkTree(message: string): Promise<{ hash: string; tree: string; changedFiles: number }> {
    const head = await this.repo.head();
    const { tree, changes } = await this.repo.stage(head?.tree ?? emptyTree);
    const hash = await this.commitTree(tree, head, message);
    return { hash, tree, changedFiles: changes.length };
  }

  /**
   * Whether the store held a checkpoint when it was opened (or at this process's latest step), without
   * a git process: a task's baseline in such a store can wait for its first change.
   */
  get heldCheckpoint(): boolean {
    return this.repo.heldCheckpoint();
  }

  /** Whether the store holds a checkpoint yet: a write of a task that has none to go back to waits for a baseline. */
  hasCheckpoints(): Promise<boolean> {
    return this.run(async () => (await this.repo.latest()) !== undefined);
  }

  /** All checkpoints, newest first. */
  list(): Promise<Checkpoint[]> {
    return this.run(async () => {
      if (!(await this.repo.head())) return [];
      const { stdout } = await this.repo.git(["log", "-z", "--format=%H%x1f%cI%x1f%B"]);
      return splitNul(stdout).map((record) => {
        const [hash = "", time = "", ...message] = record.split("\x1f");
        return { hash, time, message: message.join("\x1f").trimEnd() };
      });
    });
  }

  /** What changed from checkpoint `from` to checkpoint `to`, or to the workspace now when `to` is omitted. */
  diff(from: string, to?: string): Promise<CheckpointDiff> {
    return this.run(async () => {
      const fromCommit = await this.repo.resolveCommit(from);
      let range: string[];
      if (to === undefined) {
        const head = await this.repo.head();
        await this.repo.stage(head?.tree ?? emptyTree);
        range = ["--cached", fromCommit];
      } else {
        range = [fromCommit, await this.repo.resolveCommit(to)];
      }
      const common = ["diff", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"];
      const [nameStatus, numstat, patch] = await Promise.all([
        this.repo.git([...common, "-z", "--name-status", ...range]),
        this.repo.git([...common, "-z", "--numstat", ...range]),
        this.repo.git([...common, "--patch", ...range]),
      ]);
      // File names that are not UTF-8 are shown escaped (\xNN), in the list and in the patch.
      return { files: fileChanges(nameStatus.stdout, numstat.stdout), patch: shownName(decodeName(patch.stdout)) };
    });
  }

  /** What `restore` would change, with the same options, without changing anything. */
  previewRestore(hash: string, options: RestoreOptions = {}): Promise<RestorePreview> {
    return this.run(async () => {
      const commit = await this.repo.resolveCommit(hash);
      const cairnPaths = await this.cairnPaths(options.laterSteps);
      const head = await this.repo.head();
      const { tree } = await this.repo.stage(head?.tree ?? emptyTree);
      const plan = await planRestore(this.repo, tree, commit, { ...(cairnPaths ? { cairnPaths } : {}), untouched: "restore" });
      const files = plan.changes.map((change) => ({
        path: shownName(change.path),
        change: change.status === "A" ? ("recreate" as const) : change.status === "D" ? ("remove" as const) : ("overwrite" as const),
      }));
      return { files, untouched: shownUntouched(plan.untouched), leftAlone: plan.leftAlone.map(shownName) };
    });
  }

  /**
   * Puts the files back as they were at a checkpoint: modified files rewritten, files created since
   * removed, deleted files recreated. Every restore can be undone: the files as they are now are
   * checkpointed first ("before restore"), in the same turn of the lock so nothing slips between.
   * Files no step of Cairn's changed since the checkpoint are kept unless `untouched: "restore"`;
   * ignored and excluded files and every .git are left alone; nothing is written through a symlink.
   */
  restore(hash: string, options: RestoreOptions = {}): Promise<RestoreOutcome> {
    return this.run(async () => {
      const commit = await this.repo.resolveCommit(hash);
      const cairnPaths = await this.cairnPaths(options.laterSteps);
      const before = await this.commitWorkTree(beforeRestoreLabel);
      const untouched = options.untouched ?? "keep";
      const plan = await planRestore(this.repo, before.tree, commit, { ...(cairnPaths ? { cairnPaths } : {}), untouched });
      const counts = await applyRestore(this.repo, plan);
      const result = { ...counts, untouched: shownUntouched(plan.untouched), untouchedRestored: untouched === "restore", leftAlone: plan.leftAlone.map(shownName) };
      if (plan.changes.length === 0) return { ...result, before: { hash: before.hash } };
      const after = await this.commitWorkTree(options.afterLabel ?? "restored");
      return { ...result, before: { hash: before.hash }, after: { hash: after.hash } };
    });
  }

  /** The paths Cairn's own steps among these checkpoints changed (each against the checkpoint just before it in the store). */
  private async cairnPaths(steps: RestoreOptions["laterSteps"]): Promise<Set<string> | undefined> {
    if (steps === undefined) return undefined;
    const paths = new Set<string>();
    for (const step of steps.filter((s) => isCairnStep(s.label))) {
      const commit = await this.repo.resolveCommit(step.hash);
      const { stdout } = await this.repo.git(["diff-tree", "-r", "-z", "--name-only", "--no-renames", "--root", "--no-commit-id", commit]);
      for (const file of splitNul(stdout)) paths.add(file);
    }
    return paths;
  }

  /** Resolves once every call made so far (including background upkeep) has finished. */
  idle(): Promise<void> {
    return this.run(async () => {});
  }

  /**
   * Every call runs one at a time per shadow repository, across processes. A damaged index (only a
   * cache of the files) is rebuilt and the call tried once more; a damaged store fails every call
   * with one line saying where it is and what to do. A call that must wait for a detached git
   * building the first index waits without the lock (that git needs none) and is tried again.
   */
  private async run<T>(job: () => Promise<T>, onIndexingAway?: (indexing: IndexingAway) => void): Promise<T> {
    return serialized(this.gitDir, async () => {
      let mayIndexAway = true;
      for (;;) {
        this.repo.mayIndexAway = mayIndexAway;
        try {
          return await withOwnership(this.gitDir, () => this.attempt(job));
        } catch (error) {
          if (!(error instanceof FirstIndexUnderWay)) throw error;
          // Our own indexer that ended without its index (killed, failed) is not started again: the next try indexes in place.
          if (error.ours) mayIndexAway = false;
          await this.indexerEnded(error.indexer, onIndexingAway);
        } finally {
          this.repo.mayIndexAway = true;
        }
      }
    });
  }

  private async attempt<T>(job: () => Promise<T>): Promise<T> {
    if (this.damage) throw this.damage;
    try {
      return await job();
    } catch (error) {
      if (!(error instanceof GitError) || !indexTrouble.test(error.stderr)) throw this.classify(error);
    }
    await this.repo.rebuildIndex().catch((error: unknown) => {
      throw this.classify(error);
    });
    return await job().catch((error: unknown) => {
      throw this.classify(error);
    });
  }

  private async indexerEnded(indexer: Indexer, onIndexingAway?: (indexing: IndexingAway) => void): Promise<void> {
    const leave = new AbortController();
    let waiting = true;
    const letGo = () => {
      if (!waiting) return false;
      leave.abort();
      return true;
    };
    onIndexingAway?.({ pid: indexer.pid, files: indexer.files, letGo });
    try {
      await indexerEnded(indexer, leave.signal);
    } finally {
      waiting = false;
    }
  }

  private classify(error: unknown): unknown {
    if (!(error instanceof GitError)) return error;
    const reason = damageReason(error.stderr);
    if (reason === undefined) return error;
    this.damage = new CheckpointStoreDamagedError(this.gitDir, reason);
    return this.damage;
  }

  /** Packing runs after the caller has its checkpoint, in the queue, so only a later call can wait for it. */
  private scheduleMaintenance(): void {
    // Upkeep only saves disk; a failure here must not surface as a failed checkpoint.
    void this.run(() => this.repo.maintain()).catch(() => {});
  }
}

/** The real path of `file`, resolving the longest part of it that exists (a deleted file's folder, say). */
function realPathOfLastExisting(file: string): string {
  const missing: string[] = [];
  let existing = file;
  for (;;) {
    try {
      return path.join(realpathSync.native(existing), ...missing.reverse());
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return file;
      missing.push(path.basename(existing));
      existing = parent;
    }
  }
}

async function realWorkspace(workspace: string): Promise<string> {
  const real = await realpath(workspace).catch(() => {
    throw new CheckpointError(`Cannot checkpoint ${workspace}: the folder does not exist. Check the workspace path.`);
  });
  if (!(await stat(real)).isDirectory()) {
    throw new CheckpointError(`Cannot checkpoint ${workspace}: it is not a folder. Open a project folder as the workspace.`);
  }
  const home = await realpath(os.homedir()).catch(() => os.homedir());
  if (real === path.parse(real).root || real === home) {
    throw new CheckpointError(
      `Refusing to checkpoint ${real}: it is ${real === home ? "your home folder" : "the file-system root"}, far too large to snapshot. Open a project folder as the workspace instead.`,
    );
  }
  return real;
}

const statusNames = { A: "added", M: "modified", T: "modified", D: "deleted" } as const;

function stepChanges(changes: readonly Change[]): StepChange[] {
  return changes.map((change) => ({ path: shownName(change.path), status: statusNames[change.status] }));
}

function shownUntouched(files: readonly UntouchedFile[]): UntouchedFile[] {
  return files.map((file) => ({ ...file, path: shownName(file.path) }));
}

/** What git says about a damaged index: only a cache of the files, rebuilt from the latest checkpoint. */
const indexTrouble = /index file|bad index|index uses .* extension/i;

/** Merges `--name-status -z` and `--numstat -z` (both with --no-renames) into one entry per file. */
function fileChanges(nameStatus: Buffer, numstat: Buffer): FileChange[] {
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  for (const record of splitNul(numstat)) {
    const [added = "", deleted = "", ...rest] = record.split("\t");
    const binary = added === "-";
    counts.set(rest.join("\t"), { additions: binary ? 0 : Number(added), deletions: binary ? 0 : Number(deleted), binary });
  }
  const fields = splitNul(nameStatus);
  const files: FileChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const code = (fields[i] ?? "").charAt(0);
    const file = fields[i + 1] ?? "";
    if (code !== "A" && code !== "M" && code !== "T" && code !== "D") continue;
    const count = counts.get(file) ?? { additions: 0, deletions: 0, binary: false };
    files.push({
      path: shownName(file),
      status: statusNames[code],
      additions: count.additions,
      deletions: count.deletions,
      ...(count.binary ? { binary: true } : {}),
    });
  }
  return files;
}
