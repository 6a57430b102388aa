import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CheckpointStoreDamagedError } from "./errors.js";
import { gitEnvironment } from "./git.js";
import { shadowFolderFor } from "./shadow-repo.js";
import { Checkpoints } from "./checkpoints.js";

export type CheckpointReadability = {
  /** The workspace's shadow repository. */
  gitDir: string;
  /** Of the hashes asked about, those whose commit and file tree can be read. */
  readable: Set<string>;
  /** Why the store cannot be used as a whole (a damaged HEAD or ref, missing objects), when it cannot. */
  damage?: string;
  /** The store is not there at all (moved aside or deleted). */
  gone?: boolean;
};

/**
 * Which of a task's checkpoints can still be read, for a list that shows what it can when the
 * store is damaged. The store is opened as usual to learn whether it works as a whole; each
 * checkpoint is then looked up in its object database alone, through a throwaway repository that
 * borrows the store's objects (GIT_OBJECT_DIRECTORY): a garbage HEAD, a broken ref, a damaged
 * index or config then hide nothing that is still there. Nothing in the store is written.
 */
export async function readableCheckpoints(options: { workspace: string; baseDir: string }, hashes: readonly string[]): Promise<CheckpointReadability> {
  const base = await realpath(options.baseDir).catch(() => path.resolve(options.baseDir));
  // A workspace deleted since is still the key its store was made under.
  const workspace = await realpath(options.workspace).catch(() => options.workspace);
  const gitDir = shadowFolderFor(base, workspace);
  let damage: string | undefined;
  if (!existsSync(gitDir)) return { gitDir, readable: new Set(), gone: true };
  try {
    await Checkpoints.open({ workspace: options.workspace, baseDir: options.baseDir });
  } catch (error) {
    if (error instanceof CheckpointStoreDamagedError) damage = error.reason;
    // Any other failure (a workspace that is gone) says nothing about the store.
  }
  const wanted = hashes.filter((hash) => /^[0-9a-f]{40,64}$/.test(hash));
  if (wanted.length === 0) return { gitDir, readable: new Set(), ...(damage ? { damage } : {}) };
  const readable = await lookUp(gitDir, wanted);
  return { gitDir, readable, ...(damage ? { damage } : {}) };
}

/**
 * `cat-file --batch-check` of each commit and its tree against the store's objects; a hash is
 * readable when both are. A missing object is answered "missing"; a corrupt one stops git, so the
 * hash it stopped at counts as unreadable and the rest are asked again.
 */
async function lookUp(gitDir: string, hashes: readonly string[]): Promise<Set<string>> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), "cairn-inspect-"));
  try {
    await Promise.all([mkdir(path.join(scratch, "objects")), mkdir(path.join(scratch, "refs"))]);
    await writeFile(path.join(scratch, "HEAD"), "ref: refs/heads/none\n");
    const env = { ...gitEnvironment({ gitDir: scratch, workTree: scratch }), GIT_OBJECT_DIRECTORY: path.join(gitDir, "objects") };
    const readable = new Set<string>();
    let next = 0;
    while (next < hashes.length) {
      const rest = hashes.slice(next);
      const answers = await batchCheck(scratch, env, rest.flatMap((hash) => [`${hash}^{commit}`, `${hash}^{tree}`]));
      let answered = 0;
      while (answered < rest.length && answers[2 * answered + 1] !== undefined) {
        if (answers[2 * answered] === "commit" && answers[2 * answered + 1] === "tree") readable.add(rest[answered]!);
        answered += 1;
      }
      next += answered === rest.length ? answered : answered + 1;
    }
    return readable;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The complete answer lines git gave before it ended (all of them, or those before a fatal error). */
function batchCheck(cwd: string, env: NodeJS.ProcessEnv, requests: readonly string[]): Promise<string[]> {
  return new Promise((resolve) => {
    const child = execFile("git", ["cat-file", "--batch-check=%(objecttype)"], { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (_error, stdout) => {
      const lines = String(stdout).split("\n");
      lines.pop(); // the part after the last newline: empty, or an answer cut short
      resolve(lines);
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(`${requests.join("\n")}\n`);
  });
}
