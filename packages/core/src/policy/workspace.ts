import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export type WorkspacePath = {
  /** The path the tool will use: absolute and normalised, symlinks left as written. */
  absolute: string;
  /** Where `absolute` really is (realPath): undefined when links loop. Given so callers need not resolve it again. */
  real: string | undefined;
  /** True when the real location (all symlinks followed) is outside the workspace root. */
  external: boolean;
};

/** How many symlinks one resolution may follow before it is treated as a loop. */
const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves a model-supplied path against the workspace root and says whether it leaves the
 * workspace. `cwd` is the workspace root; `input` is relative to it, absolute, or starts with `~`.
 *
 * The boundary is decided on real paths: the deepest existing ancestor is realpath'd and the
 * rest appended, so `..`, absolute paths and symlinks anywhere in the path (including dangling
 * ones and not-yet-existing files below a symlinked folder) are all caught.
 */
export function resolveWorkspacePath(cwd: string, input: string): WorkspacePath {
  return judgePath(realPath(cwd), workspaceAbsolute(cwd, input));
}

/**
 * resolveWorkspacePath for a caller that already holds the root's real path (`realRoot`, from
 * realPath: undefined when the root's links loop) and the path as the tool will use it (`absolute`,
 * from workspaceAbsolute): one real-path resolution, however many paths share the root.
 */
export function judgePath(realRoot: string | undefined, absolute: string): WorkspacePath {
  const real = realPath(absolute);
  if (realRoot === undefined || real === undefined) return { absolute, real, external: true };
  return { absolute, real, external: !isInside(realRoot, real) };
}

/** The path a tool will use for `input` (resolveWorkspacePath's `absolute`), without judging where it really is: no file system access. */
export function workspaceAbsolute(cwd: string, input: string): string {
  return path.resolve(cwd, expandHome(input));
}

/**
 * Where `target` really is: every symlink followed, including the kernel's own links
 * (`/proc/self/cwd`, `/proc/<pid>/root`, `/dev/fd/N`), so a path is judged by what it names, not
 * by how it is written. `target` need not exist: the real path of the deepest existing ancestor
 * with the missing tail appended, a dangling link followed to where writing through it would
 * create its target. Undefined when links loop. A hard link cannot be told from an ordinary file
 * by its path, so it is judged by the name it is reached through.
 */
export function realPath(target: string): string | undefined {
  return realPathOf(path.resolve(target));
}

/** True when `candidate` is `root` or below it; both should be real paths. */
export function isInside(root: string, candidate: string): boolean {
  return isInsideRelative(path.relative(root, candidate));
}

/** How a path is shown to the model and to people: relative to the workspace with `/`, else absolute. */
export function displayPath(cwd: string, absolute: string): string {
  const relative = path.relative(cwd, absolute);
  if (relative === "") return ".";
  if (!isInsideRelative(relative)) return absolute;
  return relative.split(path.sep).join("/");
}

function expandHome(input: string): string {
  if (input === "~") return os.homedir();
  if (input.startsWith("~/") || input.startsWith(`~${path.sep}`)) return path.join(os.homedir(), input.slice(2));
  return input;
}

function isInsideRelative(relative: string): boolean {
  if (relative === "") return true;
  if (path.isAbsolute(relative)) return false; // another drive on Windows
  return relative !== ".." && !relative.startsWith(`..${path.sep}`);
}

/**
 * The real path of `target`, which need not exist: realpath of the deepest existing ancestor with
 * the missing tail appended. A dangling symlink is followed by hand, since writing through it
 * creates its target. Returns undefined when symlinks loop.
 */
function realPathOf(target: string, hops = 0): string | undefined {
  if (hops > MAX_SYMLINK_HOPS) return undefined;
  try {
    return fs.realpathSync.native(target);
  } catch (error) {
    if (errorCode(error) === "ELOOP") return undefined;
  }
  const parent = path.dirname(target);
  if (parent === target) return target; // the filesystem root itself could not be resolved
  const realParent = realPathOf(parent, hops);
  if (realParent === undefined) return undefined;
  const here = path.join(realParent, path.basename(target));
  const linkTarget = readLinkOrUndefined(here);
  if (linkTarget === undefined) return here;
  return realPathOf(path.resolve(realParent, linkTarget), hops + 1);
}

function readLinkOrUndefined(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined; // not a symlink, or does not exist: either way there is nothing to follow
  }
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
