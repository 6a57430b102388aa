import path from "node:path";

/** Device files that writing to is harmless. */
const harmlessDevices = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/**
 * Whether a path written in a command lies outside the workspace, decided on the text alone
 * (no file system access, so a symlink inside the workspace that points out is not seen).
 * `~…` is outside; relative paths are outside when an earlier `cd` left the workspace or went
 * somewhere unknown (`uncertainCwd`).
 */
export function isOutsideWorkspace(cwd: string, written: string, uncertainCwd: boolean): boolean {
  if (written === "" || harmlessDevices.test(written)) return false;
  if (written.startsWith("~")) return true;
  if (!path.posix.isAbsolute(written) && uncertainCwd) return true;
  const resolved = path.posix.resolve(cwd, written);
  const relative = path.posix.relative(path.posix.resolve(cwd), resolved);
  return relative === ".." || relative.startsWith("../") || path.posix.isAbsolute(relative);
}
