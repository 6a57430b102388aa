import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** Where git keeps the repository a folder belongs to, found the way git finds it, but checked. */
export type RepositoryLayout =
  | { kind: "repository"; workTree: string; gitDir: string; commonDir: string }
  | { kind: "none" }
  | { kind: "refused"; reason: string };

/**
 * Finds the repository `cwd` is in without asking git: git would follow `.git` files,
 * `commondir` and `core.worktree` wherever they point, and those are files a command in the
 * workspace can write. A `.git` file or `commondir` may point outside the working tree (a
 * worktree, a submodule, `--separate-git-dir` all do); what is refused is a git folder inside the
 * working tree other than its own `.git`: a folder the workspace's commands write, where a
 * planted config would be what Cairn's git reads (the reviewer's t3: `echo ../evil >
 * .git/commondir`). The working tree is where `.git` sits, never `core.worktree`.
 */
export function findRepository(cwd: string): RepositoryLayout {
  let dir: string;
  try {
    dir = realpathSync(cwd);
  } catch {
    return { kind: "none" };
  }
  for (;;) {
    const dotGit = path.join(dir, ".git");
    const found = gitDirAt(dotGit);
    if (found !== undefined) {
      if (typeof found !== "string") return found;
      return checkLayout(dir, found);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return { kind: "none" };
    dir = parent;
  }
}

/** The git folder a `.git` entry names: itself when a folder, the target of `gitdir:` when a file. */
function gitDirAt(dotGit: string): string | RepositoryLayout | undefined {
  let stat;
  try {
    stat = statSync(dotGit);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) return existsSync(path.join(dotGit, "HEAD")) ? dotGit : undefined;
  if (!stat.isFile()) return undefined;
  const line = readFileSync(dotGit, "utf8").split("\n")[0]?.trim() ?? "";
  if (!line.startsWith("gitdir:")) return { kind: "refused", reason: `${dotGit} is a file that names no git folder (no "gitdir:" line); fix or remove it.` };
  return path.resolve(path.dirname(dotGit), line.slice("gitdir:".length).trim());
}

function checkLayout(workTree: string, gitDirNamed: string): RepositoryLayout {
  const gitDir = real(gitDirNamed);
  if (gitDir === undefined) return { kind: "refused", reason: `${path.join(workTree, ".git")} points at ${gitDirNamed}, which does not exist; fix or remove it.` };
  let commonDir = gitDir;
  const commonFile = path.join(gitDir, "commondir");
  if (existsSync(commonFile)) {
    const named = path.resolve(gitDir, readFileSync(commonFile, "utf8").split("\n")[0]?.trim() ?? "");
    const resolved = real(named);
    if (resolved === undefined) return { kind: "refused", reason: `${commonFile} points at ${named}, which does not exist; fix or remove it.` };
    commonDir = resolved;
  }
  const ownGit = path.join(workTree, ".git");
  for (const [what, where, namedBy] of [
    ["git folder", gitDir, ownGit],
    ["shared git folder", commonDir, commonFile],
  ] as const) {
    if (inside(where, workTree) && !inside(where, ownGit)) {
      return {
        kind: "refused",
        reason: `the repository's ${what} is ${where}, inside the working tree where commands write, so Cairn will not run git on it; check ${namedBy} and remove what you did not put there.`,
      };
    }
  }
  return { kind: "repository", workTree, gitDir, commonDir };
}

function real(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

function inside(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}
