import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { appendFile, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { CheckpointError } from "./errors.js";
import { attributesFileContent } from "./exclusions.js";
import { GitError, gitArguments, gitVersionOutput, gitEnvironment, joinNul, runGit, splitNul, type GitOptions, type GitResult, type ShadowLocation } from "./git.js";
import { GitShell } from "./git-shell.js";
import { indexerNamed } from "./first-index.js";
import { quickStepFunction, treeAndCommitFunctions } from "./quick-step.js";
import { stageWorkTree, type StageOptions, type StagePreparation, type Staged } from "./stage.js";

/** Files larger than this are left out of checkpoints (a log, a data dump, a model file). */
export const defaultMaxFileBytes = 5 * 1024 * 1024;

const branch = "checkpoints";


/** One path that differs between two trees, as `git diff-tree --raw` reports it. */
export type Change = { status: "A" | "M" | "D" | "T"; oldMode: string; newMode: string; oldHash: string; newHash: string; path: string };

/**
 * Tuned for large work trees: the untracked cache (built for `status -uall`) and split index make
 * finding a one-file change cost little more than one lstat per tracked file; index v4 keeps the
 * index small.
 * Hooks, signing, fsmonitor and auto-gc are off; they are also forced on each command line.
 */
const shadowConfig = `
[core]
\tuntrackedCache = true
\tsplitIndex = true
\tpreloadIndex = true
\tfsmonitor = false
\thooksPath = /dev/null
\tautocrlf = false
\tquotePath = false
\tlogAllRefUpdates = false
[index]
\tversion = 4
[status]
\tshowUntrackedFiles = all
[splitIndex]
\tsharedIndexExpire = now
[gc]
\tauto = 0
[commit]
\tgpgsign = false
[diff]
\trenames = false
`;

/** The shadow folder for a workspace: keyed by a hash of its real path, so each workspace has its own. */
export function shadowFolderFor(baseDir: string, workspaceRealPath: string): string {
  const key = createHash("sha256").update(workspaceRealPath).digest("hex").slice(0, 20);
  return path.join(path.resolve(baseDir), key);
}

/**
 * The shadow git repository of one workspace and the steps that touch its index. Not safe for
 * concurrent use: `Checkpoints` runs every call through a queue.
 */
export class ShadowRepo {
  /** Runs the git commands without a fork of the agent's process each (see git-shell.ts). */
  readonly shell: GitShell | undefined;

  /** A big first index may be built by a detached process (first-index.ts); off for the try after one of ours ended without it. */
  mayIndexAway = true;

  constructor(
    readonly location: ShadowLocation,
    readonly maxFileBytes: number,
  ) {
    this.shell = process.platform === "win32" ? undefined : new GitShell(location, quickStepFunction + treeAndCommitFunctions);
  }

  async git(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
    if (!this.shell || this.shell.busy || options.indexFile !== undefined) return runGit(this.location, args, options);
    const result = options.input === undefined ? await this.shell.git(args) : await this.shell.gitWithInput(args, options.input);
    if ((options.okCodes ?? [0]).includes(result.code)) return result;
    throw new GitError(args, result.code, result.stderr, this.location.gitDir);
  }

  /** `git --version`, through the shell where there is one (a shell that cannot start leaves it to a process of its own). */
  async gitVersion(): Promise<string> {
    if (!this.shell || this.shell.busy) return gitVersionOutput();
    const result = await this.shell.git(["--version"]).catch(() => undefined);
    if (result === undefined) return gitVersionOutput();
    if (result.code !== 0) throw new Error(result.stderr.trim().split("\n")[0] || `git --version exited with ${result.code}`);
    return result.stdout.toString("utf8");
  }

  /**
   * Creates the repository on first use; a repository that already exists is left as it is. A new
   * one is known to hold no checkpoint: `latest` then asks git nothing until one appears.
   */
  async ensureInitialized(): Promise<void> {
    const { gitDir, workTree } = this.location;
    if (await isFile(path.join(gitDir, "HEAD"))) return;
    await mkdir(gitDir, { recursive: true });
    // No template: git's sample hooks and description file are copied for nothing (~4 ms), and hooks must not run here anyway.
    await this.git(["init", "-q", "--template=", `--initial-branch=${branch}`]);
    this.known = "none";
    await appendFile(path.join(gitDir, "config"), shadowConfig);
    await mkdir(path.join(gitDir, "info"), { recursive: true });
    await writeFile(path.join(gitDir, "info", "attributes"), attributesFileContent);
    // For a person looking at the checkpoint folder: which workspace this is.
    await writeFile(path.join(gitDir, "cairn-workspace"), `${workTree}\n`);
    await rm(path.join(gitDir, "hooks"), { recursive: true, force: true });
  }

  /** The latest checkpoint, if any. */
  async head(): Promise<{ commit: string; tree: string } | undefined> {
    const { stdout } = await this.git(["for-each-ref", "--format=%(objectname) %(tree)", `refs/heads/${branch}`]);
    const [commit, tree] = stdout.toString("utf8").trim().split(" ");
    return commit && tree ? { commit, tree } : undefined;
  }

  /** The full id of a checkpoint given its (possibly abbreviated) hash. */
  async resolveCommit(hash: string): Promise<string> {
    const unknown = new CheckpointError(
      `Checkpoint ${hash.slice(0, 10)} is not in the checkpoint store at ${this.location.gitDir} (it was moved aside or started afresh); list the ones there are with \`cairn checkpoints <task-id>\`.`,
    );
    if (!/^[0-9a-f]{4,64}$/i.test(hash)) throw unknown;
    const result = await this.git(["rev-parse", "-q", "--verify", `${hash}^{commit}`], { okCodes: [0, 1] });
    const commit = result.stdout.toString("utf8").trim();
    if (result.code === 0 && commit !== "") return commit;
    await this.head(); // a store whose latest checkpoint is unreadable fails here, saying why
    throw unknown;
  }

  /** Throws the index away and reads it back from the latest checkpoint: it only caches what the files were. */
  async rebuildIndex(): Promise<void> {
    const { gitDir } = this.location;
    for (const name of await readdir(gitDir)) {
      if (name === "index" || name.startsWith("sharedindex.")) await rm(path.join(gitDir, name), { force: true });
    }
    const head = await this.head();
    if (head) await this.git(["read-tree", head.tree]);
  }

  async writeTree(): Promise<string> {
    return (await this.git(["write-tree"])).stdout.toString("utf8").trim();
  }

  /** Writes the index as a tree, and what differs from `baseTree` to it: one call of the shell where there is one. */
  async writeTreeWithChanges(baseTree: string): Promise<{ tree: string; changes: Change[] }> {
    if (!this.shell || this.shell.busy) {
      const tree = await this.writeTree();
      return { tree, changes: await this.changesBetween(baseTree, tree) };
    }
    const result = await this.shell.call("cairn_tree", [baseTree]);
    if (result.code !== 0) throw new GitError(["write-tree", "diff-tree"], result.code, result.stderr, this.location.gitDir);
    const lineEnd = result.stdout.indexOf(0x0a);
    const tree = result.stdout.subarray(0, lineEnd).toString("utf8");
    return { tree, changes: tree === baseTree ? [] : parseRawDiff(result.stdout.subarray(lineEnd + 1)) };
  }

  /** Commits `tree` on top of `parent` (none: the first checkpoint) and moves HEAD to it, if HEAD is still `parent`. */
  async commit(tree: string, parent: string | undefined, message: string): Promise<string> {
    if (!this.shell || this.shell.busy) {
      const hash = (await this.git(["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-F", "-"], { input: message })).stdout.toString("utf8").trim();
      await this.git(["update-ref", "HEAD", hash, parent ?? ""]);
      return hash;
    }
    const result = await this.shell.call("cairn_commit", [tree, parent ?? "", message]);
    if (result.code !== 0) throw new GitError(["commit-tree", "update-ref"], result.code, result.stderr, this.location.gitDir);
    return result.stdout.toString("utf8").trim();
  }

  async changesBetween(fromTree: string, toTree: string): Promise<Change[]> {
    if (fromTree === toTree) return [];
    const { stdout } = await this.git(["diff-tree", "-r", "-z", "--raw", "--no-renames", fromTree, toTree]);
    return parseRawDiff(stdout);
  }

  /** Which of these workspace-relative paths the ignore rules (gitignore, exclude file) leave out. */
  async ignoredAmong(paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    const { stdout } = await this.git(["check-ignore", "--no-index", "-z", "--stdin"], { input: joinNul(paths), okCodes: [0, 1] });
    return new Set(splitNul(stdout));
  }

  /**
   * Puts the work tree's current state into the shadow index and writes it as a tree; returns the
   * tree and what changed since `baseTree` (see stage.ts).
   */
  async stage(baseTree: string): Promise<{ tree: string; changes: Change[] }> {
    const staged = await stageWorkTree(this, baseTree);
    if ("deferred" in staged) throw new Error("a full stage is never deferred");
    return { tree: staged.tree, changes: await staged.changes() };
  }

  /** `stage` for one step: only the paths it touched, and a first index put off when it is too big (see stage.ts). */
  stageStep(baseTree: string, options: StageOptions, prepared?: StagePreparation): Promise<Staged> {
    return stageWorkTree(this, baseTree, options, prepared);
  }

  /**
   * The latest checkpoint, without a git process when it is the one this object last saw: the
   * branch's loose ref file is read and compared. Another process's checkpoint, or a ref git has
   * packed, is read through git.
   */
  async latest(): Promise<{ commit: string; tree: string } | undefined> {
    if (this.known === "none") {
      // Still none unless another process made one since (its ref is loose, or packed by its upkeep).
      const { gitDir } = this.location;
      if (!existsSync(path.join(gitDir, "refs", "heads", branch)) && !existsSync(path.join(gitDir, "packed-refs"))) return undefined;
    } else if (this.known) {
      let ref: string | undefined;
      try {
        ref = readFileSync(path.join(this.location.gitDir, "refs", "heads", branch), "utf8");
      } catch {
        ref = undefined; // packed, or gone: ask git
      }
      if (ref?.trim() === this.known.commit) return this.known;
    }
    const head = await this.head();
    this.known = head;
    return head;
  }

  /** Notes a checkpoint this object just made the latest, for `latest`. */
  madeLatest(head: { commit: string; tree: string }): void {
    this.known = head;
  }

  /** Whether the store held a checkpoint when this object last looked (opening it, or its own latest step), without asking git. */
  heldCheckpoint(): boolean {
    return typeof this.known === "object";
  }

  /** The latest checkpoint as this object last saw it; "none" for a store it just created. */
  private known: { commit: string; tree: string } | "none" | undefined;

  /** Takes paths out of the index (whatever is on disk). */
  async forceRemove(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.git(["update-index", "--force-remove", "-z", "--stdin"], { input: joinNul(paths) });
  }

  /**
   * Packs the loose objects the last call wrote and merges small packs geometrically (the large pack
   * of a first checkpoint is only rewritten once the small ones add up to half its size). A loose
   * object takes a 4 KB block and often a new fan-out folder; packed, a one-file checkpoint costs a
   * few KB, and a first checkpoint of 100k small files ~20 MB instead of ~400 MB.
   */
  async maintain(): Promise<void> {
    await this.git(repackArgs);
  }

  /**
   * Runs the same packing in a detached, low-priority process once enough loose objects have piled
   * up (a first checkpoint of a large workspace, or many steps), so that no step waits for it; the
   * process outlives Cairn if it must. Loose objects are counted as git's own auto-gc does, from one
   * of the 256 fan-out folders. Packing beside checkpoints is safe: git writes objects before any
   * tree or ref names them, and `repack -d` removes only what it has packed. Returns whether it started.
   */
  packInBackground(): boolean {
    const { gitDir, workTree } = this.location;
    let sample: string[];
    try {
      sample = readdirSync(path.join(gitDir, "objects", "17"));
    } catch {
      return false; // no loose object in this folder yet
    }
    if (sample.length * 256 < backgroundPackLooseObjects || process.platform === "win32") return false;
    if (indexerNamed(gitDir)) return false; // a first index is being written: its objects are packed once it is done
    const marker = path.join(gitDir, "cairn-packing");
    try {
      const since = Date.now() - statSync(marker).mtimeMs;
      if (since < 30 * 60_000) return false; // another Cairn process is packing
    } catch {
      // No packing under way.
    }
    writeFileSync(marker, `${process.pid}\n`);
    const child = spawn("sh", ["-c", 'nice -n 19 git "$@"; rm -f "$0"', marker, ...gitArguments(repackArgs)], {
      cwd: workTree,
      env: gitEnvironment(this.location),
      detached: true,
      stdio: "ignore",
      windowsHide: true,
    });
    child.on("error", () => {});
    child.unref();
    return true;
  }
}

const repackArgs = ["repack", "-d", "-q", "--geometric=2"];

/** Loose objects (4 KB each on disk) worth a background repack: about 10 MB. */
export const backgroundPackLooseObjects = 2_560;

/** Parses `git diff-tree/diff-index --raw -z --no-renames` output. */
export function parseRawDiff(output: Buffer): Change[] {
  const fields = splitNul(output);
  const changes: Change[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode = "", newMode = "", oldHash = "", newHash = "", status = ""] = (fields[i] ?? "").slice(1).split(" ");
    const kind = status.charAt(0);
    if (kind !== "A" && kind !== "M" && kind !== "D" && kind !== "T") continue;
    changes.push({ status: kind, oldMode, newMode, oldHash, newHash, path: fields[i + 1] ?? "" });
  }
  return changes;
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() ?? false;
}
