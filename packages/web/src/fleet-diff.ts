import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { branchProblem, fleetGitConfig, fleetGitEnv, repoProblem } from "@cairn/host/fleet/git-target";

const run = promisify(execFile);

/** One file a fleet job changed: both sides as text, for the page's diff view (core's diff-hunks). */
export type FleetFileChange = {
  path: string;
  status: "added" | "modified" | "deleted";
  old_text: string | null;
  new_text: string | null;
  /** Why the text is not shown (binary, too large). */
  note?: string;
};
export type FleetDiff = { branch: string; base: string; head: string; files: FleetFileChange[]; more_files: number };

const maxFiles = 50;
const maxBytes = 256 * 1024;
const statusOf: Record<string, FleetFileChange["status"]> = { A: "added", M: "modified", D: "deleted", T: "modified" };

/**
 * git in the page's cache, on the machine running cairn web: the repository and branch come from
 * Redis, so only the fleet's transports, no hooks, and every value after --end-of-options or --.
 */
async function git(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run("git", [...fleetGitConfig, ...args], { cwd, env: fleetGitEnv(), maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** Fetches into one cache at a time per repository in this process; git locks against other processes. */
const fetching = new Map<string, Promise<unknown>>();

/**
 * The diff of a job's branch against its base, read from the repository it was pushed to: the branch
 * is the record a reviewer merges, so the page shows what is really there, from any machine that can
 * read the repository (a git URL or a local path alike). The worker commits a job's changes as one
 * commit on its base, so the base is the branch's parent; two commits deep is all that is fetched.
 */
export async function branchDiff(repo: string, branch: string, cacheRoot: string): Promise<FleetDiff | string> {
  const problem = repoProblem(repo) ?? branchProblem(branch);
  if (problem) return `Cannot show this job's diff: ${problem}`;
  const cache = path.join(cacheRoot, `${createHash("sha256").update(repo).digest("hex").slice(0, 16)}.git`);
  const ref = `refs/fleet/${branch}`;
  const previous = fetching.get(cache) ?? Promise.resolve();
  const fetched = previous.catch(() => {}).then(async () => {
    if (!existsSync(path.join(cache, "HEAD"))) {
      mkdirSync(cache, { recursive: true });
      await git(["init", "--quiet", "--bare"], cache);
    }
    await git(["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--depth", "2", "--", repo, `+refs/heads/${branch}:${ref}`], cache);
  });
  fetching.set(cache, fetched);
  try {
    await fetched;
  } catch (error) {
    const text = ((error as { stderr?: string }).stderr || (error as Error).message).trim().split("\n")[0];
    return `Cannot read ${branch} from ${repo}: ${text}`;
  }
  const head = (await git(["rev-parse", "--verify", "--end-of-options", ref], cache)).trim();
  const base = (await git(["rev-parse", "--verify", "--end-of-options", `${ref}^`], cache)).trim();
  const listed = (await git(["diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--name-status", "-z", base, head, "--"], cache)).split("\0").filter(Boolean);
  const changes: Array<{ status: FleetFileChange["status"]; path: string }> = [];
  for (let i = 0; i + 1 < listed.length; i += 2) changes.push({ status: statusOf[listed[i]!] ?? "modified", path: listed[i + 1]! });
  const files: FleetFileChange[] = [];
  for (const change of changes.slice(0, maxFiles)) {
    const side = async (rev: string): Promise<string | { note: string }> => {
      const size = Number((await git(["cat-file", "-s", `${rev}:${change.path}`], cache)).trim());
      if (size > maxBytes) return { note: `too large to show (${Math.round(size / 1024)} KB)` };
      const text = await git(["cat-file", "blob", `${rev}:${change.path}`], cache);
      return text.includes("\0") ? { note: "binary file" } : text;
    };
    const before = change.status === "added" ? null : await side(base);
    const after = change.status === "deleted" ? null : await side(head);
    const note = [before, after].find((s): s is { note: string } => typeof s === "object" && s !== null);
    files.push({
      path: change.path,
      status: change.status,
      old_text: typeof before === "string" ? before : null,
      new_text: typeof after === "string" ? after : null,
      ...(note ? { note: note.note } : {}),
    });
  }
  return { branch, base, head, files, more_files: Math.max(0, changes.length - maxFiles) };
}
