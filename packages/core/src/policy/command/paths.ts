import path from "node:path";
import { protectedPath } from "../protected-paths.js";
import { resolveWorkspacePath } from "../workspace.js";

/** Device files that reading or writing touches nothing of the person's. */
const harmlessDevices = /^\/dev\/(null|zero|random|urandom|stdin|stdout|stderr|tty|fd\/[0-2])$/;

/**
 * Whether a path written in a command lies outside the workspace. The text decides first: `~…`
 * is outside; relative paths are outside when an earlier `cd` left the workspace or went
 * somewhere unknown (`uncertainCwd`). Then the real path (symlinks and /proc links followed, as
 * resolveWorkspacePath does for the file tools), so `docs/cfg.txt -> ../.env` counts as outside.
 * The check happens before the command runs; the OS sandbox is what holds at run time.
 */
export function isOutsideWorkspace(cwd: string, written: string, uncertainCwd: boolean): boolean {
  if (written === "" || harmlessDevices.test(written)) return false;
  if (written.startsWith("~")) return true;
  if (!path.posix.isAbsolute(written) && uncertainCwd) return true;
  const resolved = path.posix.resolve(cwd, written);
  const relative = path.posix.relative(path.posix.resolve(cwd), resolved);
  if (relative === ".." || relative.startsWith("../") || path.posix.isAbsolute(relative)) return true;
  return resolveWorkspacePath(cwd, written).external;
}

/** A cd/pushd/popd that goes out of the workspace, home, back, or somewhere computed. */
export function leavesWorkspace(name: string | undefined, args: readonly (string | undefined)[], cwd: string): boolean {
  if (name !== "cd" && name !== "pushd" && name !== "popd") return false;
  if (name === "popd") return true;
  const index = args.findIndex((a) => a === undefined || !a.startsWith("-") || a === "-");
  if (index < 0) return true; // cd alone goes home
  const target = args[index];
  return target === undefined || target === "-" || isOutsideWorkspace(cwd, target, false);
}

/**
 * The protected file (.git/, .cairn/, .mcp.json, ignore files) a path in a command names, if any.
 * The file tools never auto-approve a write there; a command naming one needs the person too, so
 * `echo … > .git/hooks/pre-commit` cannot widen what the agent may do.
 */
export function namesProtectedPath(cwd: string, written: string, uncertainCwd: boolean): string | undefined {
  if (written === "" || harmlessDevices.test(written)) return undefined;
  if (!path.posix.isAbsolute(written) && uncertainCwd) return undefined; // already asked as outside
  return protectedPath(written, { cwd })?.path;
}
