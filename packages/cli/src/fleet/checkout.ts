import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { openHostGit } from "@cairn/core";
import { fleetGitConfig, fleetGitEnv, refProblem, repoProblem } from "@cairn/host/fleet/git-target";

const run = promisify(execFile);

/**
 * git with an identity and no prompts (a worker has nobody to type a password), only the allowed
 * transports, and no hooks. Every value a job supplies goes after --end-of-options or --.
 */
async function git(args: string[], cwd?: string): Promise<string> {
  const { stdout } = await run("git", [...fleetGitConfig, "-c", "user.name=cairn fleet", "-c", "user.email=fleet@cairn.invalid", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    env: fleetGitEnv(),
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/**
 * git in the job's clone once the run is over. The run's commands could write in the clone (its
 * .gitattributes, and whatever the sandbox lets them reach under .git), and `add -A` runs clean
 * filters, hooks and fsmonitor, `push` a remote's receivepack, all on the worker outside the
 * sandbox; host git runs none of the programs the clone's config names.
 */
async function gitAfterRun(dir: string, args: string[]): Promise<string> {
  const opened = openHostGit(dir);
  if (opened.kind === "none") throw new Error(`${dir} is no longer a git repository: the run removed its .git, so there is nothing to commit.`);
  if (opened.kind === "refused") throw new Error(`${dir}: ${opened.reason}`);
  const { stdout } = await run("git", ["-c", "user.name=cairn fleet", "-c", "user.email=fleet@cairn.invalid", ...opened.git.argv(args)], {
    cwd: dir,
    // push reaches the job's repository: only the allowed transports there too.
    env: { ...opened.git.env, GIT_ALLOW_PROTOCOL: fleetGitEnv().GIT_ALLOW_PROTOCOL },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** Fetches into one mirror at a time per repository in this process; other processes are git's to lock. */
const fetching = new Map<string, Promise<void>>();

/**
 * A bare mirror of the repository at `mirror` (see fleet-folders.ts), cloned once and fetched before
 * each job, so a scratch checkout copies nothing over the network that the machine already has.
 */
async function mirrorOf(repo: string, mirror: string): Promise<string> {
  const previous = fetching.get(mirror) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(async () => {
    if (existsSync(path.join(mirror, "HEAD"))) await git(["fetch", "--prune", "--quiet", "origin"], mirror);
    else {
      mkdirSync(path.dirname(mirror), { recursive: true, mode: 0o300 });
      const partial = `${mirror}.${process.pid}.tmp`;
      rmSync(partial, { recursive: true, force: true });
      await git(["clone", "--mirror", "--quiet", "--", repo, partial]);
      // Another worker on this machine may have finished first; its mirror is as good as ours.
      try {
        renameSync(partial, mirror);
      } catch {
        rmSync(partial, { recursive: true, force: true });
      }
    }
  });
  fetching.set(mirror, next);
  await next;
  return mirror;
}

export type Checkout = { dir: string; base: string };

/**
 * A scratch working tree of the repository at `ref` (default its HEAD), on branch `branch`, in
 * `scratchDir`, sharing the objects of its mirror at `mirrorDir` (fleet-folders.ts names both). The
 * repository and ref come from the queue: a shape git could read as an option or a program is
 * refused before git runs (an Error whose message says which and why).
 */
export async function checkout(repo: string, ref: string | undefined, branch: string, mirrorDir: string, scratchDir: string): Promise<Checkout> {
  const problem = repoProblem(repo) ?? (ref === undefined ? undefined : refProblem(ref));
  if (problem) throw new Error(problem);
  const mirror = await mirrorOf(repo, mirrorDir);
  rmSync(scratchDir, { recursive: true, force: true });
  mkdirSync(path.dirname(scratchDir), { recursive: true, mode: 0o300 });
  await git(["clone", "--quiet", "--shared", "--no-checkout", "--", mirror, scratchDir]);
  const base = (await git(["rev-parse", "--verify", "--end-of-options", `${ref ?? "HEAD"}^{commit}`], scratchDir)).trim();
  if (!/^[0-9a-f]{40,64}$/.test(base)) throw new Error(`ref ${JSON.stringify(ref ?? "HEAD")} did not name one commit.`);
  await git(["checkout", "--quiet", "-B", branch, base, "--"], scratchDir);
  return { dir: scratchDir, base };
}

/**
 * Commits whatever the run changed on the job's branch and pushes it to the repository (its remote,
 * or the local repository itself). Returns the files changed; none means nothing was pushed.
 */
export async function commitAndPush(work: Checkout, repo: string, branch: string, message: string): Promise<string[]> {
  const problem = repoProblem(repo);
  if (problem) throw new Error(problem);
  await gitAfterRun(work.dir, ["add", "-A"]);
  const staged = (await gitAfterRun(work.dir, ["diff", "--cached", "--name-only", "-z"])).split("\0").filter(Boolean);
  if (staged.length === 0) return [];
  await gitAfterRun(work.dir, ["commit", "--quiet", "-m", message]);
  // Forced: a job taken up again after its worker died owns its branch; the first try's push, if any, is stale.
  await gitAfterRun(work.dir, ["push", "--quiet", "--force", "--end-of-options", repo, `${branch}:refs/heads/${branch}`]);
  return staged;
}
