import type { Dirent } from "node:fs";
import { readdir, readFile, readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { z } from "zod";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import { displayPath, realPath } from "../policy/workspace.js";
import { refusalFor } from "./files/index.js";
import { defineTool, type ToolResult } from "./tool.js";

/** Entries shown by a recursive listing; breadth-first, so the cap keeps the top levels. */
const RECURSIVE_LIMIT = 200;
/** Entries shown by a flat listing of one folder. */
const FLAT_LIMIT = 500;
/** After the cap, keep counting what was left out up to this many entries, then just say "more". */
const COUNT_BUDGET = 10_000;

/** Dependency, build and cache folders: listed, never descended into (search_files skips them too). */
export const HEAVY_DIRS: ReadonlySet<string> = new Set([
  "node_modules",
  "bower_components",
  ".git",
  ".hg",
  ".svn",
  "dist",
  "build",
  "out",
  "target",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".parcel-cache",
  ".venv",
  "venv",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".tox",
  "coverage",
  ".nyc_output",
  ".cache",
  ".gradle",
  ".terraform",
  "Pods",
  "DerivedData",
]);

const parameters = z.object({
  path: z.string().describe("Folder, relative to the workspace (or absolute)."),
  recursive: z
    .boolean()
    .optional()
    .describe("true for the whole tree below it; omit for its direct entries."),
});

const description = `List a folder. Folders end with "/", symlinks show "-> target"; paths are relative to the workspace, sorted.
Without recursive: its direct entries, hidden and git-ignored ones too (up to ${FLAT_LIMIT}).
With recursive: the tree breadth-first (up to ${RECURSIVE_LIMIT} entries), without .gitignore'd entries; dependency/build folders (node_modules/, .git/, dist/, .venv/ ...) and symlinked folders are shown but not expanded. A note says how many entries a cap left out; list a subfolder to see them.
Entries marked 🔒 are blocked by the user's .cairnignore: they cannot be read, listed or searched.
Don't use it to check that a file you just created exists.

Example:
<list_files>
<path>src</path>
<recursive>true</recursive>
</list_files>`;

export const listFilesTool = defineTool({
  name: "list_files",
  description,
  parameters,
  kind: "read",
  modes: ["act", "plan"],
  access: (input) => [{ type: "read", path: input.path }],
  summarize: (input) => `list ${input.path === "" ? "." : input.path}${input.recursive === true ? " (recursive)" : ""}`,
  async execute(input, ctx) {
    const root = ctx.resolvePath(input.path);
    const shownRoot = folderName(displayPath(ctx.cwd, root));
    const blocked = (absolute: string) => ctx.ignore.ignores(absolute);
    try {
      const stats = await stat(root);
      if (!stats.isDirectory()) {
        return failure(`${displayPath(ctx.cwd, root)} is a file, not a folder. Use read_file to read it.`);
      }
    } catch (error) {
      if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") throw error;
      return failure(`Folder not found: ${shownRoot}. List its parent folder to see what exists.`);
    }

    if (blocked(root)) {
      return failure(`${shownRoot} is blocked by ${blockingFiles(ctx.ignore)}; its contents cannot be listed. List another folder.`);
    }
    const outside = refusalFor(ctx, root, realPath(root) ?? root, shownRoot, "read");
    if (outside !== undefined) return failure(outside);

    const listing =
      input.recursive === true
        ? await listRecursive(root, ctx.cwd, blocked, ctx.signal)
        : await listFlat(root, ctx.cwd, blocked);
    if (listing === undefined) {
      return failure(`Permission denied reading ${shownRoot}. Ask the user to make it readable, or list another folder.`);
    }
    if (listing.entries.length === 0) {
      if (listing.hidden === 0) return { content: `${shownRoot} is empty.` };
      return { content: `No files to show in ${shownRoot}: all ${listing.hidden} entries are ignored by .gitignore.` };
    }

    const lines = listing.entries.sort(compareEntries).map((entry) => formatEntry(entry, ctx.cwd));
    if (listing.omitted > 0 || listing.moreUncounted) {
      const count = listing.moreUncounted ? `at least ${listing.omitted}` : String(listing.omitted);
      const hint =
        input.recursive === true
          ? "list a subfolder to see them"
          : "use search_files or a command to find specific files";
      lines.push(`[... ${count} more not shown; ${hint}]`);
    }
    if (listing.entries.some((entry) => entry.blocked)) {
      lines.push(`[🔒 = blocked by ${blockingFiles(ctx.ignore)}: the name is shown, its contents cannot be read]`);
    }
    return { content: lines.join("\n") };
  },
});

type Entry = {
  absolute: string;
  isDirectory: boolean;
  /** For symlinks: where it points, as shown to the model. */
  linkTarget?: string;
  /** Path segments relative to the listed folder, for sorting. */
  segments: string[];
  /** Blocked by .cairnignore: shown with 🔒, never expanded. */
  blocked: boolean;
};

type Listing = { entries: Entry[]; omitted: number; moreUncounted: boolean; hidden: number };

/** The ignore policy's verdict on an absolute path. */
type IsBlocked = (absolute: string) => boolean;

async function listFlat(root: string, cwd: string, isBlocked: IsBlocked): Promise<Listing | undefined> {
  const dirents = await readDirOrUndefined(root);
  if (dirents === undefined) return undefined;
  dirents.sort((a, b) => compareNames(a.name, b.name));
  const entries: Entry[] = [];
  for (const dirent of dirents) {
    if (entries.length >= FLAT_LIMIT) break;
    entries.push(await toEntry(root, dirent, [], cwd, isBlocked));
  }
  return { entries, omitted: dirents.length - entries.length, moreUncounted: false, hidden: 0 };
}

type Pending = { absolute: string; segments: string[]; rules: IgnoreLevel[] };

async function listRecursive(
  root: string,
  cwd: string,
  isBlocked: IsBlocked,
  signal: AbortSignal,
): Promise<Listing | undefined> {
  const queue: Pending[] = [{ absolute: root, segments: [], rules: await ancestorRules(root, cwd) }];
  const entries: Entry[] = [];
  let omitted = 0;
  let hidden = 0;

  for (let next = 0; next < queue.length; next += 1) {
    signal.throwIfAborted();
    if (omitted >= COUNT_BUDGET) return { entries, omitted, moreUncounted: true, hidden };
    const dir = queue[next];
    if (dir === undefined) break;
    const dirents = await readDirOrUndefined(dir.absolute);
    if (dirents === undefined) {
      if (next === 0) return undefined;
      continue; // an unreadable subfolder is still listed, just not expanded
    }
    const rules = dirents.some((d) => d.name === ".gitignore" && !d.isDirectory())
      ? [...dir.rules, await readIgnoreLevel(dir.absolute)]
      : dir.rules;
    dirents.sort((a, b) => compareNames(a.name, b.name));

    for (const dirent of dirents) {
      const entry = await toEntry(dir.absolute, dirent, dir.segments, cwd, isBlocked);
      if (isIgnored(rules, entry.absolute, entry.isDirectory)) {
        hidden += 1;
        continue;
      }
      if (entries.length < RECURSIVE_LIMIT) entries.push(entry);
      else omitted += 1;
      if (entry.isDirectory && entry.linkTarget === undefined && !entry.blocked && !HEAVY_DIRS.has(dirent.name)) {
        queue.push({ absolute: entry.absolute, segments: entry.segments, rules });
      }
    }
  }
  return { entries, omitted, moreUncounted: false, hidden };
}

async function toEntry(
  parent: string,
  dirent: Dirent,
  parentSegments: string[],
  cwd: string,
  isBlocked: IsBlocked,
): Promise<Entry> {
  const absolute = path.join(parent, dirent.name);
  const segments = [...parentSegments, dirent.name];
  const blocked = isBlocked(absolute);
  if (!dirent.isSymbolicLink()) return { absolute, isDirectory: dirent.isDirectory(), segments, blocked };
  const target = await linkTargetOf(absolute, cwd);
  const isDirectory = await stat(absolute).then(
    (s) => s.isDirectory(),
    () => false, // dangling link
  );
  return { absolute, isDirectory, linkTarget: target, segments, blocked };
}

async function linkTargetOf(link: string, cwd: string): Promise<string> {
  try {
    return displayPath(cwd, await realpath(link));
  } catch {
    return await readlink(link).catch(() => "?"); // dangling or looping: show what it says
  }
}

function formatEntry(entry: Entry, cwd: string): string {
  const shown = displayPath(cwd, entry.absolute);
  const name = `${entry.blocked ? "🔒 " : ""}${entry.isDirectory ? withSlash(shown) : shown}`;
  if (entry.linkTarget === undefined) return name;
  const target = entry.isDirectory ? withSlash(entry.linkTarget) : entry.linkTarget;
  return `${name} -> ${target}`;
}

/**
 * One folder's .gitignore. Git gives the deepest file the last word, so levels are tested from the
 * root down and each level that matches overrides the ones above it.
 */
type IgnoreLevel = { base: string; rules: Ignore };

const ignoreCase = process.platform === "darwin" || process.platform === "win32";

async function readIgnoreLevel(dir: string): Promise<IgnoreLevel> {
  const text = await readFile(path.join(dir, ".gitignore"), "utf8").catch(() => "");
  return { base: dir, rules: ignore({ ignorecase: ignoreCase }).add(text) };
}

function isIgnored(levels: IgnoreLevel[], absolute: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    const relative = path.relative(level.base, absolute).split(path.sep).join("/");
    const result = level.rules.test(isDirectory ? `${relative}/` : relative);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/**
 * The .gitignore files between the workspace root and the listed folder (exclusive), so listing
 * `packages/core` still hides what the root .gitignore hides. When the listed folder is itself
 * ignored, the model asked for it on purpose: only the .gitignore files inside it apply.
 */
async function ancestorRules(root: string, cwd: string): Promise<IgnoreLevel[]> {
  const relative = path.relative(cwd, root);
  const outside = relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (relative === "" || outside) return [];
  const levels: IgnoreLevel[] = [];
  let dir = cwd;
  for (const segment of ["", ...relative.split(path.sep).slice(0, -1)]) {
    dir = path.join(dir, segment);
    const hasFile = await stat(path.join(dir, ".gitignore")).then(
      (s) => s.isFile(),
      () => false,
    );
    if (hasFile) levels.push(await readIgnoreLevel(dir));
  }
  return isIgnored(levels, root, true) ? [] : levels;
}

async function readDirOrUndefined(dir: string): Promise<Dirent[] | undefined> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === "EACCES" || code === "EPERM" || code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** Case-insensitive, then by code unit, so the order is the same on every machine and locale. */
function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Segment by segment, so a folder's contents follow the folder itself. */
function compareEntries(a: Entry, b: Entry): number {
  const length = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i += 1) {
    const order = compareNames(a.segments[i] ?? "", b.segments[i] ?? "");
    if (order !== 0) return order;
  }
  return a.segments.length - b.segments.length;
}

/** Names the ignore files in force, for messages. */
function blockingFiles(rules: IgnoreRules): string {
  return rules.files.length > 0 ? rules.files.join(" / ") : ".cairnignore";
}

function folderName(shown: string): string {
  return shown === "." ? "." : withSlash(shown);
}

function withSlash(shown: string): string {
  return shown.endsWith("/") ? shown : `${shown}/`;
}

function failure(content: string): ToolResult {
  return { content, isError: true };
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
