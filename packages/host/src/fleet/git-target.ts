/**
 * The repository, ref and branch of a fleet job, checked before git sees them. They come from Redis,
 * which anyone who reaches it can write, and git reads a value that starts with "-" as an option
 * (`--upload-pack=<command>` runs that command), and a repository named `ext::<command>` or
 * `fd::…` as a transport that runs a program. So each value must have one of the shapes a person
 * gives, git is always called with `--end-of-options` or `--` before them, and only these transports
 * are allowed (GIT_ALLOW_PROTOCOL, which git also applies to redirects and submodules).
 */
export const allowedGitProtocols = "file:git:http:https:ssh";

const URL_SCHEMES = new Set(["file:", "git:", "http:", "https:", "ssh:", "git+ssh:", "ssh+git:"]);
/** git's `<transport>::<address>`: a remote helper, a program run by name (ext:: runs any command). */
const HELPER_TRANSPORT = /^[A-Za-z0-9+.-]+::/;
/** `[user@]host:path`, git's scp-like ssh address (no slash before the colon). */
const SCP_LIKE = /^(?:([^@/:]+)@)?([^@/:[\]]+|\[[0-9A-Fa-f:.]+\]):(.*)$/;
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

function shown(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 199)}…` : value);
}

/** Why `repo` is not a repository a fleet job may name, or undefined when it is one. */
export function repoProblem(repo: string): string | undefined {
  const refuse = (why: string) =>
    `repository ${shown(repo)} ${why}; a fleet job's repository is an absolute path, a file/git/http(s)/ssh URL or user@host:path.`;
  if (repo === "") return refuse("is empty");
  if (CONTROL.test(repo)) return refuse("holds control characters");
  if (repo.startsWith("-")) return refuse("starts with - (git would read it as an option)");
  if (HELPER_TRANSPORT.test(repo)) return refuse("names a git transport helper (<name>::), which runs a program");
  if (repo.startsWith("/")) return undefined;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(repo)) {
    let url: URL;
    try {
      url = new URL(repo);
    } catch {
      return refuse("is not a valid URL");
    }
    if (!URL_SCHEMES.has(url.protocol.toLowerCase())) return refuse(`uses ${url.protocol.slice(0, -1)}://, which the fleet does not allow`);
    if (url.protocol === "file:") return url.pathname.startsWith("/") ? undefined : refuse("is a file URL without an absolute path");
    // ssh would read a host or user that starts with - as one of its options (-oProxyCommand=…).
    if (url.hostname === "" || url.hostname.startsWith("-") || decodeURIComponent(url.username).startsWith("-")) return refuse("has no host, or a host or user that starts with -");
    return undefined;
  }
  const scp = SCP_LIKE.exec(repo);
  if (scp) {
    const [, user, host] = scp;
    if (host!.startsWith("-") || user?.startsWith("-")) return refuse("has a host or user that starts with - (ssh would read it as an option)");
    return undefined;
  }
  return refuse("is a relative path or an unknown form");
}

/**
 * Why `ref` cannot be where a job starts, or undefined. A ref is a branch, tag, commit or a rev
 * expression (main~2, v1.2^, @); whether it names a commit is git's to say (rev-parse --verify).
 */
export function refProblem(ref: string): string | undefined {
  if (ref.length === 0 || ref.length > 256) return `ref ${shown(ref)} must be 1 to 256 characters.`;
  if (ref.startsWith("-")) return `ref ${shown(ref)} starts with - (git would read it as an option); give a branch, tag or commit.`;
  if (!/^[A-Za-z0-9_@][\w./~^@{}+-]*$/.test(ref)) return `ref ${shown(ref)} is not a branch, tag or commit name (letters, digits and _ . / ~ ^ @ { } + - only).`;
  return undefined;
}

/** Why `branch` is not a fleet job's branch (cairn/<job id>), or undefined. */
export function branchProblem(branch: string): string | undefined {
  if (/^cairn\/[A-Za-z0-9][\w.-]*$/.test(branch) && !branch.includes("..") && !branch.endsWith(".lock") && branch.length <= 200) return undefined;
  return `branch ${shown(branch)} is not a fleet job's branch (cairn/<job id>).`;
}

/**
 * Settings for every git the fleet runs on a repository a job names: only the allowed transports;
 * no hooks, fsmonitor or submodule recursion from any config; no prompts (nobody is there to answer).
 * The caller's GIT_* variables are dropped (a GIT_DIR inherited from a hook would point git elsewhere),
 * except the person's own ssh setup.
 */
export function fleetGitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (!name.startsWith("GIT_") || /^GIT_(SSH|SSH_COMMAND|SSH_VARIANT|ASKPASS)$/.test(name)) env[name] = value;
  return { ...env, GIT_ALLOW_PROTOCOL: allowedGitProtocols, GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat" };
}

/** `-c` settings before any subcommand: what no repository's or person's config may turn back on. */
export const fleetGitConfig: readonly string[] = [
  "-c", "core.hooksPath=/dev/null",
  "-c", "core.fsmonitor=false",
  "-c", "submodule.recurse=false",
  "-c", "protocol.ext.allow=never",
  "-c", "protocol.fd.allow=never",
];
