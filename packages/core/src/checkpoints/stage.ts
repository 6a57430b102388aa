import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync, type Stats } from "node:fs";
import { access, constants, lstat } from "node:fs/promises";
import path from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { encodeName, fsName } from "../disk/byte-names.js";
import { excludeFileContent, readIgnoreFilesSync } from "./exclusions.js";
import { backgroundIndexAbove, FirstIndexUnderWay, largeFilesByFind, settleFirstIndex, startIndexer, type Indexer } from "./first-index.js";
import { GitError, joinNul, splitNul } from "./git.js";
import { listNestedFiles } from "./nested-repos.js";
import type { Change, ShadowRepo } from "./shadow-repo.js";
import { thousands } from "../text/thousands.js";


/** How long a first index's `git status` may list before its large files are looked for with `find` as well. */
const findAfterMs = 25;

/**
 * Making the shadow index match the work tree, as cheaply as the change allows.
 *
 * `git status -uall` finds what changed: one lstat per tracked file, and, thanks to the untracked
 * cache, a readdir only of folders whose mtime moved (`git add -A` re-reads every folder). A few
 * changed paths then go to `update-index`; many (a first checkpoint, a branch switch) go to
 * `git add -A`, which indexes in bulk about twice as fast.
 *
 * Before anything is hashed, every candidate is lstat'ed: files over the size limit are recorded in
 * the exclude file instead of being copied into the object store.
 *
 * The first index of a big workspace is built by a detached git process (see first-index.ts): the
 * stage throws `FirstIndexUnderWay`, and the try after it starts from the finished index.
 *
 * A step that says which paths it touched gets a status of those paths only (git then looks at
 * nothing else: no lstat of the other 100,000 files), and a status that finds nothing at all means
 * the latest checkpoint's tree still stands, so nothing else runs.
 */

/** Above this many changed paths, `git add -A` beats listing them to `update-index`. */
export const bulkThreshold = 1_000;

export type StageOptions = {
  /**
   * Workspace-relative (posix) paths, files or folders: only these may have changed since the last
   * checkpoint (a step's edits). Omitted: anything may have (a command, a first checkpoint).
   */
  paths?: readonly string[];
  /** One line for the person when many files are about to be indexed at once. */
  onNotice?: (message: string) => void;
  /** A first index of more files than this is not built now; the result says how many there are. */
  deferAbove?: number;
};

/** The staged tree; `changes` (against the base tree) may still need a git process, which can run beside the commit. */
export type Staged = { tree: string; changes(): Promise<Change[]> } | { deferred: number };

/**
 * What every stage finds out first: whether there is an index yet, whether the exclude rules just
 * changed (written now), and whether the index is a detached process's first one, adopted now.
 */
export type StagePreparation = { indexExisted: boolean; rulesChanged: boolean; large: LargeFiles; adopted?: { indexer: Indexer; tookMs: number } };

/** Throws `FirstIndexUnderWay` while another process builds the first index: nothing may read or write the index before it is done. */
export function prepareStage(repo: ShadowRepo): StagePreparation {
  // A few reads of small files, synchronous: each step makes them, and on a busy event loop every asynchronous one waits its turn.
  const firstIndex = settleFirstIndex(repo.location.gitDir);
  if (firstIndex && "live" in firstIndex) throw new FirstIndexUnderWay(firstIndex.live, false);
  const indexExisted = existsSync(path.join(repo.location.gitDir, "index"));
  const large = new LargeFiles(repo);
  const rulesChanged = large.writeExcludes(large.stillLarge());
  return { indexExisted, rulesChanged, large, ...(firstIndex ? { adopted: { indexer: firstIndex.adopted, tookMs: firstIndex.tookMs } } : {}) };
}

/**
 * Whether a step's own paths can go straight to `git add -A` (see quick-step.ts): existing files
 * (or links) under real folders, none too large, with an index to add them to and no rule change
 * that could make other files ignored. A deleted path, a folder, a large file or a path through a
 * link takes the status-based stage instead.
 */
export function quickEligible(repo: ShadowRepo, paths: readonly string[], preparation: StagePreparation): boolean {
  if (!preparation.indexExisted || preparation.rulesChanged || paths.length === 0) return false;
  const { workTree } = repo.location;
  const realFolders = new Map<string, boolean>();
  for (const file of paths) {
    if (!underRealFolders(workTree, file, realFolders)) return false;
    const stats = lstatSync(fsName(path.join(workTree, file)), { throwIfNoEntry: false });
    if (!stats || stats.isDirectory() || (stats.isFile() && stats.size > repo.maxFileBytes)) return false;
  }
  return true;
}

export async function stageWorkTree(repo: ShadowRepo, baseTree: string, options: StageOptions = {}, prepared?: StagePreparation): Promise<Staged> {
  const { indexExisted, large, rulesChanged, adopted } = prepared ?? prepareStage(repo);
  if (adopted) options.onNotice?.(`checkpoints: indexed ${thousands(adopted.indexer.files)} files in ${(adopted.tookMs / 1000).toFixed(1)} s`);

  const pathspecs = options.paths?.map((file) => `:(literal)${file}`) ?? [];
  // A first index may go to a git of its own (first-index.ts): its large files are looked for beside
  // the status, by a `find` started only when the status is still listing after a moment (a big work
  // tree); a small one's status is done before then and spares the process.
  const mayGoAway = !indexExisted && pathspecs.length === 0 && repo.mayIndexAway && process.platform !== "win32";
  const search: { finding?: ReturnType<typeof largeFilesByFind> } = {};
  const findLater = mayGoAway ? setTimeout(() => (search.finding = largeFilesByFind(repo.location.workTree, repo.maxFileBytes)), findAfterMs) : undefined;
  let status: Status;
  let largeByFind: ReadonlySet<string> | undefined;
  try {
    const statusOutput = (
      await repo.git(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", ...(pathspecs.length > 0 ? ["--", ...pathspecs] : [])])
    ).stdout;
    // Nothing differs from the latest checkpoint (status compares the index with HEAD too): its tree stands.
    if (statusOutput.length === 0 && pathspecs.length === 0 && indexExisted && !rulesChanged) return { tree: baseTree, changes: async () => [] };
    status = parseStatus(statusOutput);
    if (options.deferAbove !== undefined && !indexExisted && status.paths.length > options.deferAbove) return { deferred: status.paths.length };
    if (search.finding && status.paths.length > backgroundIndexAbove) largeByFind = await search.finding.files;
  } finally {
    clearTimeout(findLater);
    search.finding?.stop();
  }
  const found = largeByFind ? splitBySize(status.paths, largeByFind) : await inspect(repo.location.workTree, status.paths, repo.maxFileBytes);
  // update-index refuses any path "beyond a symbolic link", even to remove it: take those out by force.
  if (found.beyondLink.length > 0) await repo.forceRemove(found.beyondLink);
  if (found.tooLarge.length > 0) {
    large.add(found.tooLarge);
    await repo.forceRemove(found.tooLarge); // a tracked file that grew past the limit leaves the checkpoints
  }
  if (found.present.length > bulkThreshold) {
    const count = thousands(found.present.length);
    const started = Date.now();
    options.onNotice?.(`checkpoints: indexing ${count} files…`);
    const away = mayGoAway && found.present.length > backgroundIndexAbove;
    const indexer = away ? startIndexer(repo.location, found.present.length, bulkAddArgs(status.nestedRepos)) : undefined;
    if (indexer) throw new FirstIndexUnderWay(indexer, true);
    await bulkAdd(repo, status.nestedRepos);
    options.onNotice?.(`checkpoints: indexed ${count} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } else {
    await updatePaths(repo, [...found.present, ...found.missing]);
  }
  if (status.nestedRepos.length > 0) await stageNestedRepos(repo, status.nestedRepos, large);

  const { tree, changes } = await repo.writeTreeWithChanges(baseTree);
  // A repository that appeared between `status` and `add` was staged as a gitlink: take its files instead.
  const gitlinks = changes.filter((change) => change.newMode === "160000").map((change) => change.path);
  // New rules can make tracked files ignored; on a first index nothing was tracked before, and an
  // adopted one was indexed under the rules of its time: only a .gitignore changed since counts.
  const gitignoreChanged = (adopted ? status.paths : changes.map((change) => change.path)).some((file) => path.posix.basename(file) === ".gitignore");
  const mayTrackIgnored = indexExisted && (rulesChanged || gitignoreChanged);
  if (gitlinks.length === 0 && !mayTrackIgnored) return { tree, changes: async () => changes };

  if (gitlinks.length > 0) await stageNestedRepos(repo, gitlinks, large);
  if (mayTrackIgnored) await dropIgnoredFromIndex(repo);
  const final = await repo.writeTreeWithChanges(baseTree);
  return { tree: final.tree, changes: async () => final.changes };
}

/** A small file's bytes, or undefined when it cannot be read. */
function readBytesSync(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

type Status = {
  /** Tracked paths whose work-tree file differs from the index, and untracked files. */
  paths: string[];
  /** Untracked folders holding their own repository (`-uall` lists every other untracked file singly). */
  nestedRepos: string[];
};

/** Parses `git status --porcelain=v1 -z --no-renames`: `XY path`, X = index vs HEAD, Y = work tree vs index. */
function parseStatus(output: Buffer): Status {
  const status: Status = { paths: [], nestedRepos: [] };
  for (const record of splitNul(output)) {
    const code = record.slice(0, 2);
    const file = record.slice(3);
    if (code === "??") {
      if (file.endsWith("/")) status.nestedRepos.push(file.slice(0, -1));
      else status.paths.push(file);
    } else if (code[1] !== " ") {
      status.paths.push(file);
    }
  }
  return status;
}

type Inspection = {
  present: string[];
  missing: string[];
  tooLarge: string[];
  /** Tracked paths under a folder that is now a symlink (or a file): gone from the workspace, whatever the link points at. */
  beyondLink: string[];
};

/**
 * lstat of each candidate, synchronously in slices (3× faster than the thread pool) with yields
 * between. Git's paths are relative and normalised: joined by hand, which halves the cost of 100,000.
 */
async function inspect(workTree: string, paths: readonly string[], maxFileBytes: number): Promise<Inspection> {
  const result: Inspection = { present: [], missing: [], tooLarge: [], beyondLink: [] };
  const realFolders = new Map<string, boolean>();
  for (let start = 0; start < paths.length; start += 2_000) {
    if (start > 0) await yieldToEventLoop();
    for (const file of paths.slice(start, start + 2_000)) {
      // lstat only looks at the last component: `src/a.ts` with `src -> /elsewhere` would read outside the workspace.
      if (!underRealFolders(workTree, file, realFolders)) {
        result.beyondLink.push(file);
        continue;
      }
      const stats = lstatOrNothing(`${workTree}/${file}`);
      if (!stats) result.missing.push(file);
      else if (stats.isFile() && stats.size > maxFileBytes) result.tooLarge.push(file);
      else result.present.push(file);
    }
  }
  return result;
}

/**
 * A first index's untracked paths, split by the large files `find` found. Nothing is tracked yet, so
 * no path can be beyond a link, and one deleted since the status is skipped by `git add -A`.
 */
function splitBySize(paths: readonly string[], large: ReadonlySet<string>): Inspection {
  const result: Inspection = { present: [], missing: [], tooLarge: [], beyondLink: [] };
  for (const file of paths) (large.has(file) ? result.tooLarge : result.present).push(file);
  return result;
}

/** Whether every folder on the way to `file` is a real folder (not a symlink, not a file); `cache`: per folder, whether it and every folder above it are. */
function underRealFolders(workTree: string, file: string, cache: Map<string, boolean>): boolean {
  const slash = file.lastIndexOf("/");
  return slash < 0 || realFolderChain(workTree, file.slice(0, slash), cache);
}

function realFolderChain(workTree: string, folder: string, cache: Map<string, boolean>): boolean {
  let real = cache.get(folder);
  if (real !== undefined) return real;
  const slash = folder.lastIndexOf("/");
  real = slash < 0 || realFolderChain(workTree, folder.slice(0, slash), cache);
  // missing: the file is simply gone, which update-index --remove handles
  if (real) real = lstatOrNothing(`${workTree}/${folder}`)?.isDirectory() ?? true;
  cache.set(folder, real);
  return real;
}

/** lstat, or undefined when it fails (gone, unreadable folder); a missing file costs no exception. */
function lstatOrNothing(file: string): Stats | undefined {
  try {
    return lstatSync(fsName(file), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Stages these paths (added, changed or deleted); unreadable files are left out of the index rather than failing. */
async function updatePaths(repo: ShadowRepo, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const args = ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"];
  try {
    await repo.git(args, { input: joinNul(paths) });
  } catch (error) {
    // update-index stops at the first file it cannot read; find them and go again without them.
    if (!(error instanceof GitError)) throw error;
    const unreadable = await unreadableAmong(repo.location.workTree, paths);
    if (unreadable.length === 0) throw error;
    await repo.forceRemove(unreadable);
    const skip = new Set(unreadable);
    const readable = paths.filter((file) => !skip.has(file));
    if (readable.length > 0) await repo.git(args, { input: joinNul(readable) });
  }
}

/** `git add -A` over the whole work tree, except nested repositories (staged file by file instead). */
async function bulkAdd(repo: ShadowRepo, nestedRepos: readonly string[]): Promise<void> {
  const add = await repo.git(bulkAddArgs(nestedRepos), { okCodes: [0, 1] });
  if (add.code !== 0) await dropUnreadableFromIndex(repo);
}

function bulkAddArgs(nestedRepos: readonly string[]): string[] {
  const exclusions = nestedRepos.map((folder) => `:(exclude,literal)${folder}`);
  return ["add", "-A", "--ignore-errors", "--no-warn-embedded-repo", "--", ".", ...exclusions];
}

/**
 * A tracked file that became unreadable keeps its old content in the index after `add
 * --ignore-errors`; untracking it makes it "present but not checkpointed", which restore leaves alone
 * rather than overwriting content it never saw.
 */
async function dropUnreadableFromIndex(repo: ShadowRepo): Promise<void> {
  const { stdout } = await repo.git(["diff-files", "-z", "--name-only"]);
  await repo.forceRemove(await unreadableAmong(repo.location.workTree, splitNul(stdout)));
}

async function unreadableAmong(workTree: string, paths: readonly string[]): Promise<string[]> {
  const unreadable: string[] = [];
  for (const file of paths) {
    const absolute = fsName(path.join(workTree, file));
    const stats = await lstat(absolute).catch(() => undefined);
    if (stats?.isFile() && !(await access(absolute, constants.R_OK).then(() => true, () => false))) unreadable.push(file);
  }
  return unreadable;
}

/**
 * Puts nested repositories' files into the index as ordinary files (see nested-repos.ts), after
 * taking out any gitlink git made for them. From then on the folder has index entries and git walks
 * into it like any other folder.
 */
async function stageNestedRepos(repo: ShadowRepo, folders: readonly string[], large: LargeFiles): Promise<void> {
  await repo.forceRemove(folders);
  const files: string[] = [];
  const tooLarge: string[] = [];
  for (const folder of folders) {
    const listed = await listNestedFiles(repo.location.workTree, folder, repo.maxFileBytes);
    files.push(...listed.files);
    tooLarge.push(...listed.large);
  }
  const ignored = await repo.ignoredAmong([...files, ...tooLarge]);
  await updatePaths(
    repo,
    files.filter((file) => !ignored.has(file)),
  );
  const keptOut = tooLarge.filter((file) => !ignored.has(file));
  if (keptOut.length > 0) large.add(keptOut);
}

/** Untracks files that the current rules exclude, so checkpoints follow rule changes. */
async function dropIgnoredFromIndex(repo: ShadowRepo): Promise<void> {
  const { stdout } = await repo.git(["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"]);
  await repo.forceRemove(splitNul(stdout));
}

/**
 * Files left out for their size, kept in `cairn-large-files.json` and written into the exclude file
 * (so neither status nor add looks at them again). A file that shrinks back under the limit, or is
 * deleted, drops off the list at the next checkpoint.
 */
export class LargeFiles {
  private readonly listFile: string;
  private readonly excludeFile: string;
  private current: string[] = [];

  constructor(private readonly repo: ShadowRepo) {
    this.listFile = path.join(repo.location.gitDir, "cairn-large-files.json");
    this.excludeFile = path.join(repo.location.gitDir, "info", "exclude");
  }

  stillLarge(): string[] {
    const listed = this.load();
    const still: string[] = [];
    for (const file of listed) {
      const stats = lstatSync(fsName(path.join(this.repo.location.workTree, file)), { throwIfNoEntry: false });
      if (stats?.isFile() && stats.size > this.repo.maxFileBytes) still.push(file);
    }
    if (still.length !== listed.length) this.save(still);
    return still;
  }

  add(files: readonly string[]): void {
    const next = [...new Set([...this.current, ...files])].sort();
    this.save(next);
    this.writeExcludes(next);
  }

  /**
   * Rewrites `info/exclude` from the defaults, .cairnignore/.clineignore and the size list; true when it
   * changed. Synchronous, as the reads before it: a new store's baseline makes it while the event loop is
   * busy with the first reply and the shell parser, and each asynchronous step would wait its turn.
   */
  writeExcludes(largeFiles: readonly string[]): boolean {
    this.current = [...largeFiles];
    const { workTree, gitDir } = this.repo.location;
    const inside = path.relative(workTree, gitDir);
    const ownFolders = inside !== "" && !inside.startsWith("..") && !path.isAbsolute(inside) ? [inside.split(path.sep).join("/")] : [];
    // A large file whose name is not UTF-8 is excluded by its exact bytes.
    const content = encodeName(excludeFileContent({ ignoreFiles: readIgnoreFilesSync(workTree), largeFiles, ownFolders }));
    if (readBytesSync(this.excludeFile)?.equals(content)) return false;
    mkdirSync(path.dirname(this.excludeFile), { recursive: true });
    writeFileSync(this.excludeFile, content);
    return true;
  }

  private load(): string[] {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.listFile, "utf8"));
      return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === "string") : [];
    } catch {
      return []; // missing or damaged: it only costs finding the large files again
    }
  }

  private save(files: readonly string[]): void {
    writeFileSync(this.listFile, JSON.stringify(files));
  }
}
