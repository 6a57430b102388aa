import { execFileSync } from "node:child_process";
import path from "node:path";
import { openHostGit } from "../host-git/index.js";
import type { IgnoreRules } from "../policy/ignore-rules.js";

const cache = new Map<string, { at: number; stamp: string; value: boolean }>();
/** Commits happen between calls; a short life keeps the answer fresh without a git run per command. */
const ttlMs = 30_000;

/**
 * Whether git tracks a file the ignore rules block: then its stored copies (history, the index)
 * can be printed by git even though the file itself is masked. False outside a repository and when
 * there are no rules. True when git cannot answer or host-git refuses the repository (a planted
 * commondir): a failure an attacker can cause (a damaged index, a redirected git folder) must not
 * be what lets `git show HEAD:.env` run unasked. This runs on the host whenever a command is
 * proposed, so it goes through host-git: a repository's core.fsmonitor or hooks would otherwise
 * run here, unsandboxed.
 */
export function gitTracksIgnored(cwd: string, ignore: IgnoreRules): boolean {
  const stamp = ignore.files.join("|");
  if (stamp === "") return false;
  const cached = cache.get(cwd);
  if (cached && cached.stamp === stamp && Date.now() - cached.at < ttlMs) return cached.value;
  let value = true;
  try {
    const opened = openHostGit(cwd);
    if (opened.kind === "none") value = false;
    if (opened.kind === "repository") {
      const { git } = opened;
      const listing = execFileSync("git", git.argv(["ls-files", "-z", "--cached"]), { cwd, env: git.env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000, maxBuffer: 256 * 1024 * 1024 });
      value = listing.split("\0").some((file) => file !== "" && ignore.ignoresAsWritten(path.join(cwd, file)));
    }
  } catch {
    value = true;
  }
  cache.set(cwd, { at: Date.now(), stamp, value });
  return value;
}
