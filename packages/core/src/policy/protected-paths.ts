import fs from "node:fs";
import path from "node:path";
import { ignoreFileNames } from "./ignore-rules.js";

/**
 * Files the model may change only when the person says yes to that one change: never
 * auto-approved, not by --yolo, an auto-approve category, a hook's `allow` or an MCP server's list.
 *
 * The class is what Cairn itself reads to run code or to decide what the agent may do, plus git's
 * folder, because a model that can write these widens its own permissions:
 * - `.cairnignore`, `.clineignore`: the person's list of what is out of reach.
 * - `.cairn/`: the project's settings.json (hooks are commands) and whatever Cairn keeps there next.
 * - `.mcp.json`: servers Cairn starts as processes.
 * - `.git/` in any folder (also a `.git` file): hooks run on commit, and config keys such as
 *   core.fsmonitor, core.pager or aliases run commands for the checkpoints and the person's own git.
 * - CAIRN_HOME's settings, MCP settings, approvals, trust records and checkpoint repositories, its
 *   task records (all but each task's scratch/ folder: a task's metadata holds the rules the person
 *   allowed for that task), and its agents/ and workflows/: an agent definition names the tools a sub-agent gets and a workflow
 *   is instructions run by name, in every later session of every project; its AGENTS.md, the
 *   person's global rules, which go into the system prompt of every later task of every project;
 *   any `.cairn` folder outside the workspace (the default CAIRN_HOME is ~/.cairn).
 *
 * Left out on purpose: a project's rules files (.clinerules, AGENTS.md) are prose the model reads
 * for this project only, and often asked to edit, not permissions; `.gitmodules` runs nothing (git ignores `update = !cmd` there); other tools' files
 * that run code (.vscode/settings.json, .envrc, .husky/, package.json scripts) are ordinary project
 * files the model is often asked to edit, Cairn never runs them itself, and the commands that
 * would run them are the command classifier's and the sandbox's to judge.
 */
export const protectedFolderNames: readonly string[] = [".git", ".cairn"];
export const protectedFileNames: readonly string[] = [".mcp.json", ...ignoreFileNames];
/** Entries of CAIRN_HOME that hold the person's own config and decisions. */
/** `cache`: the sandbox's seccomp filter, which bubblewrap loads from there for every command; `mcp_cache.json`: MCP servers' tools as later tasks are told of them. */
export const protectedHomeEntries: readonly string[] = ["settings.json", "mcp_settings.json", "mcp_approvals.json", "mcp_cache.json", "trust.json", "permissions.json", "checkpoints", "cache", "agents", "workflows", "AGENTS.md"];

const why: Record<string, string> = {
  ".git": "git's folder: its hooks and config run commands",
  ".cairn": "Cairn's project settings: hooks there run commands",
  ".mcp.json": "the project's MCP servers: Cairn starts them as processes",
  ".cairnignore": "the person's list of files out of your reach",
  ".clineignore": "the person's list of files out of your reach",
};

/**
 * The workspace's protected files and folders and CAIRN_HOME's, as absolute paths, whether they
 * exist or not: what the OS sandbox mounts read-only. Nested `.git` folders are not listed (that
 * would need a walk of the tree); `protectedPath` protects them by name.
 */
export function protectedPaths(workspace: string, home?: string): string[] {
  const inWorkspace = [...protectedFolderNames, ...protectedFileNames].map((name) => path.join(workspace, name));
  const inHome = home ? protectedHomeEntries.map((name) => path.join(home, name)) : [];
  return [...inWorkspace, ...inHome];
}

export type ProtectedHit = {
  /** The protected file or folder the path is, or lies in, as the person knows it (".cairn/settings.json"). */
  path: string;
  /** Why it is protected, for the model and the person. */
  reason: string;
};

/**
 * Whether writing `target` (absolute, or relative to `cwd`) changes a protected file. Checked on the
 * path as written and on its real path (symlinks followed, a dangling last link too), so an alias
 * such as `cfg -> .cairn` is the folder it points to; a hard link to a protected file counts as it.
 */
export function protectedPath(target: string, options: { cwd: string; home?: string }): ProtectedHit | undefined {
  const written = path.resolve(options.cwd, target);
  const real = realPathOf(written);
  const roots = unique([options.cwd, realPathOf(options.cwd) ?? options.cwd]);
  const homes = options.home ? unique([options.home, realPathOf(options.home) ?? options.home]) : [];
  for (const candidate of unique([written, ...(real ? [real] : [])])) {
    const hit = byName(candidate, roots) ?? inHome(candidate, homes);
    if (hit) return hit;
  }
  return hardLinkOf(written, roots, homes);
}

function byName(candidate: string, roots: readonly string[]): ProtectedHit | undefined {
  const root = roots.find((r) => isInside(r, candidate));
  // Outside the workspace only folders count (another repository's .git, the default ~/.cairn):
  // the path to the workspace itself may pass through folders of any name.
  const parts = root === undefined ? candidate.split(path.sep).filter(Boolean) : path.relative(root, candidate).split(path.sep).filter(Boolean);
  for (const [i, part] of parts.entries()) {
    const name = part.toLowerCase();
    const isFolderName = protectedFolderNames.includes(name);
    const isFileName = root !== undefined && i === parts.length - 1 && protectedFileNames.includes(name);
    if (!isFolderName && !isFileName) continue;
    const shown = root === undefined ? candidate : parts.join("/");
    return { path: shown, reason: why[name]! };
  }
  return undefined;
}

function inHome(candidate: string, homes: readonly string[]): ProtectedHit | undefined {
  for (const home of homes) {
    if (!isInside(home, candidate) || candidate === home) continue;
    const parts = path.relative(home, candidate).split(path.sep);
    if (parts[0] === "skills") return { path: candidate, reason: "the person's global skills (CAIRN_HOME/skills): every later task of every project may follow them, and runs their scripts" };
    if (parts[0] === "AGENTS.md") return { path: candidate, reason: "the person's global rules (CAIRN_HOME/AGENTS.md): every later task of every project reads them" };
    if (protectedHomeEntries.includes(parts[0]!)) return { path: candidate, reason: "Cairn's own settings and records (CAIRN_HOME)" };
    // A task's records (its metadata holds the rules the person allowed for it), all but its scratch folder.
    if (parts[0] === "tasks" && parts[2] !== "scratch") return { path: candidate, reason: "Cairn's task records (CAIRN_HOME/tasks): a task's metadata holds what the person allowed it" };
  }
  return undefined;
}

/** An existing file with more than one link is the protected file it shares an inode with. */
function hardLinkOf(file: string, roots: readonly string[], homes: readonly string[]): ProtectedHit | undefined {
  const stat = statOrUndefined(file);
  if (!stat || !stat.isFile() || stat.nlink < 2) return undefined;
  const files = [...roots.flatMap((root) => protectedFileNames.map((name) => path.join(root, name))), ...homes.flatMap((home) => protectedHomeEntries.map((name) => path.join(home, name)))];
  for (const candidate of files) {
    const other = statOrUndefined(candidate);
    if (other && other.ino === stat.ino && other.dev === stat.dev) return { path: candidate, reason: `a hard link to ${path.basename(candidate)}, which is protected` };
  }
  return undefined;
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!path.isAbsolute(relative) && relative !== ".." && !relative.startsWith(`..${path.sep}`));
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}

/**
 * The real path of a file that need not exist: realpath of the deepest existing ancestor with the
 * rest appended, following a dangling link by hand (writing through it creates its target).
 * Undefined when links loop.
 */
function realPathOf(target: string, hops = 0): string | undefined {
  if (hops > 40) return undefined;
  try {
    return fs.realpathSync.native(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") return undefined;
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  const realParent = realPathOf(parent, hops);
  if (realParent === undefined) return undefined;
  const here = path.join(realParent, path.basename(target));
  let link: string;
  try {
    link = fs.readlinkSync(here);
  } catch {
    return here;
  }
  return realPathOf(path.resolve(realParent, link), hops + 1);
}
