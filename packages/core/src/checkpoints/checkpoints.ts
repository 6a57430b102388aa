import { mkdir, realpath, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CheckpointError } from "./errors.js";
import { checkGitVersion, emptyTree, splitNul } from "./git.js";
import { withOwnership } from "./locks.js";
import { restoreCheckpoint, type RestoreResult } from "./restore.js";
import { defaultMaxFileBytes, shadowFolderFor, ShadowRepo } from "./shadow-repo.js";

export type CheckpointOptions = {
  /** The folder to checkpoint. */
  workspace: string;
  /** Where shadow repositories live; the host passes `CAIRN_HOME/checkpoints`. */
  baseDir: string;
  /** Files larger than this are left out of checkpoints (default 5 MB). */
  maxFileBytes?: number;
};

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
  private constructor(private readonly repo: ShadowRepo) {}

  /** Opens (creating on first use) the shadow repository of a workspace. */
  static async open(options: CheckpointOptions): Promise<Checkpoints> {
    const workspace = await realWorkspace(options.workspace);
    await checkGitVersion();
    await mkdir(options.baseDir, { recursive: true });
    const gitDir = shadowFolderFor(await realpath(options.baseDir), workspace);
    const repo = new ShadowRepo({ gitDir, workTree: workspace }, options.maxFileBytes ?? defaultMaxFileBytes);
    await mkdir(gitDir, { recursive: true });
    await serialized(gitDir, () => withOwnership(gitDir, () => repo.ensureInitialized()));
    return new Checkpoints(repo);
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
      const head = await this.repo.head();
      const { tree, changes } = await this.repo.stage(head?.tree ?? emptyTree);
      const parents = head ? ["-p", head.commit] : [];
      const commitArgs = ["commit-tree", tree, ...parents, "-F", "-"];
      const hash = (await this.repo.git(commitArgs, { input: message || "checkpoint" })).stdout.toString("utf8").trim();
      await this.repo.git(["update-ref", "HEAD", hash, head?.commit ?? ""]);
      return { hash, changedFiles: changes.length };
    });
    void created.then(() => this.scheduleMaintenance(), () => {});
    return created;
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
      return { files: fileChanges(nameStatus.stdout, numstat.stdout), patch: patch.stdout.toString("utf8") };
    });
  }

  /**
   * Puts the files back as they were at a checkpoint: modified files rewritten, files created since
   * removed, deleted files recreated. Excluded and ignored files, and every .git, are left alone.
   */
  restore(hash: string): Promise<RestoreResult> {
    return this.run(async () => restoreCheckpoint(this.repo, await this.repo.resolveCommit(hash)));
  }

  /** Resolves once every call made so far (including background upkeep) has finished. */
  idle(): Promise<void> {
    return this.run(async () => {});
  }

  private run<T>(job: () => Promise<T>): Promise<T> {
    return serialized(this.gitDir, () => withOwnership(this.gitDir, job));
  }

  /** Packing runs after the caller has its checkpoint, in the queue, so only a later call can wait for it. */
  private scheduleMaintenance(): void {
    // Upkeep only saves disk; a failure here must not surface as a failed checkpoint.
    void this.run(() => this.repo.maintain()).catch(() => {});
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
      path: file,
      status: statusNames[code],
      additions: count.additions,
      deletions: count.deletions,
      ...(count.binary ? { binary: true } : {}),
    });
  }
  return files;
}
