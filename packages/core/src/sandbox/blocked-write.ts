import path from "node:path";
import { contains } from "./bwrap-args.js";

export type WritableSet = {
  workspace: string;
  readOnlyWorkspace: boolean;
  /** Writable folders besides the workspace (/tmp and settings' writablePaths). */
  writable: readonly string[];
};

const READ_ONLY = /read-only file system|\bEROFS\b/i;
const DENIED = /permission denied|\bEACCES\b|\bEPERM\b|operation not permitted/i;
const ABSOLUTE = /(?:^|[\s'"`(=:])(\/[^\s'"`:,)]+)/g;
/** A path with .git as one of its parts, as git, mv and rm name it. */
const IN_DOT_GIT = /(?:^|[\s'"`/])\.git(?:[/'"`:\s]|$)/;
/** Renaming or removing a mount point, as `mv .git x` meets it. */
const BUSY = /device or resource busy|\bEBUSY\b/i;

/**
 * The line to add to a command's result when its output shows the sandbox stopping a write:
 * "Read-only file system" (EROFS), or a permission error naming a path outside the writable set.
 * Undefined when nothing points at the sandbox.
 */
export function blockedWriteNote(output: string, set: WritableSet): string | undefined {
  let blocked = false;
  const lines = output.split("\n");
  if (!set.readOnlyWorkspace && lines.some((line) => (READ_ONLY.test(line) || BUSY.test(line)) && IN_DOT_GIT.test(line))) return GIT_NOTE;
  for (const line of lines) {
    if (READ_ONLY.test(line)) {
      blocked = true;
      break;
    }
    if (DENIED.test(line) && absolutePaths(line).some((p) => !writable(p, set))) {
      blocked = true;
      break;
    }
  }
  if (!blocked) return undefined;
  const where = set.readOnlyWorkspace ? "anywhere (read-only sandbox: the workspace is read-only too, only /tmp is writable)" : "outside the workspace and /tmp (or to a protected file such as .cairnignore or .git/hooks)";
  return `Note: the OS sandbox blocked a write ${where}. This is the person's setting, not an error to work around: if the write is needed, tell the person; they can allow it by running Cairn with --sandbox off, or with "sandbox" in settings.json (mode, writablePaths).`;
}

/**
 * git add, commit, checkout -b, stash and the like write under .git, which the sandbox keeps
 * read-only (command-sandbox.ts). There is no per-command way out of the sandbox, so the note
 * names what the person can do.
 */
const GIT_NOTE =
  "Note: .git is read-only in the OS sandbox, so git commands that write to the repository (add, commit, checkout -b, stash, init) fail here. Do not work around it: tell the person which git command to run; they can run it themselves, or run Cairn with --sandbox off.";

function absolutePaths(line: string): string[] {
  return [...line.matchAll(ABSOLUTE)].map((m) => m[1] as string).filter((p) => p.length > 1);
}

function writable(file: string, set: WritableSet): boolean {
  const resolved = path.resolve(file);
  if (contains("/tmp", resolved) || contains("/dev", resolved) || contains("/proc", resolved)) return true;
  if (!set.readOnlyWorkspace && contains(set.workspace, resolved)) return true;
  return set.writable.some((dir) => contains(dir, resolved));
}
