/** Helpers for the checkpoint tests: real temp folders and real git, nothing mocked. */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Checkpoints } from "./checkpoints.js";

export type TempWorkspace = { root: string; workspace: string; baseDir: string; cleanup(): Promise<void> };

/** A fresh workspace folder and a separate checkpoint base folder (as CAIRN_HOME/checkpoints would be). */
export async function tempWorkspace(name = "workspace"): Promise<TempWorkspace> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-checkpoints-")));
  const workspace = path.join(root, name);
  const baseDir = path.join(root, "cairn-home", "checkpoints");
  await mkdir(workspace, { recursive: true });
  const cleanup = async () => {
    // Packing runs in the background after each create; let it finish before deleting the store.
    if (existsSync(baseDir) && existsSync(workspace)) await (await Checkpoints.open({ workspace, baseDir })).idle().catch(() => {});
    await rm(root, { recursive: true, force: true });
  };
  return { root, workspace, baseDir, cleanup };
}

/** Writes files (creating folders) from a map of workspace-relative path → content. */
export async function writeFiles(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
  }
}

export const read = (root: string, file: string): Promise<string> => readFile(path.join(root, file), "utf8");

/**
 * Runs the person's own git in `cwd`, with an isolated HOME so the machine's config does not leak
 * in, and without any GIT_* variables of the test process.
 */
export function userGit(cwd: string, args: string[], home: string): string {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("GIT_")) env[key] = value;
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...env,
      HOME: home,
      XDG_CONFIG_HOME: home,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Person",
      GIT_AUTHOR_EMAIL: "person@example.com",
      GIT_COMMITTER_NAME: "Person",
      GIT_COMMITTER_EMAIL: "person@example.com",
    },
  });
}

/** Every file under a folder (recursively) with a hash of its bytes: compare before/after to prove nothing changed. */
export async function snapshotTree(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(folder, relative), { withFileTypes: true })) {
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        out[`${child}/`] = "dir";
        await walk(child);
      } else {
        const bytes = entry.isFile() ? await readFile(path.join(folder, child)) : Buffer.from(entry.isSymbolicLink() ? "link" : "other");
        out[child] = createHash("sha1").update(bytes).digest("hex");
      }
    }
  };
  await walk("");
  return out;
}

/** Workspace-relative paths of the files a checkpoint holds (via the shadow repo's own git). */
export function filesInCheckpoint(gitDir: string, hash: string): string[] {
  const output = execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-r", "-z", "--name-only", hash], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: gitDir, GIT_CONFIG_NOSYSTEM: "1" },
  });
  return output.split("\0").filter((line) => line !== "");
}
