import { execFileSync } from "node:child_process";
import { findRepository } from "./repository-layout.js";

/**
 * git that Cairn itself runs, on the host and outside any sandbox, against the person's
 * repository: listing what git tracks, the @git-changes and @<commit> mentions, a fleet job's
 * commit. The repository is the attacker here: its `.git/config` (and the files that config
 * includes, and a `commondir` it points at) can be written by a downloaded project or by a command
 * the model ran, and git runs programs that config names: core.fsmonitor on any index read, hooks
 * (post-index-change when a read refreshes the index), filter drivers that .gitattributes selects
 * on any content comparison, diff drivers and textconv, a pager, gpg for log.showSignature, ssh,
 * credential helpers, a remote's receivepack.
 *
 * How each is kept from running, and why this way:
 * - Programs named by config are replaced, not guessed at: `git config --list --show-scope` (which
 *   reads files and runs nothing) lists every key git will see, includes followed; every key that
 *   names a program and comes from the repository (scope local or worktree) is overridden at
 *   command scope, the highest, with the person's own value (system or global) or a harmless one.
 *   Listing the config rather than the `filter=` names in attributes is what makes this hold:
 *   attributes come from every .gitattributes in every tree git reads, info/attributes and
 *   core.attributesFile, while a driver can only run if config defines it. (`--attr-source` would
 *   not cover info/attributes, and this project's git, 2.39, predates it.)
 * - A few are overridden always: core.fsmonitor, core.hooksPath (/dev/null: no hook exists there),
 *   the pager, signatures, gc, submodule recursion, and the ext/fd transports.
 * - Subcommands get the flags that turn drivers off where git offers them (`--no-ext-diff
 *   --no-textconv`, `--ignore-submodules=all` so git does not run itself inside a submodule whose
 *   config was not listed), and only subcommands listed here can run.
 * - A repository whose own config includes another file (include.path, includeIf.*.path) is
 *   refused: the listing is one read and each later git process reads the config again, so an
 *   included file outside .git (which the sandbox keeps read-only) could be swapped between the
 *   two by a background command, and its filter run. Includes in the person's global config are theirs.
 * - The repository is found by Cairn, not git (repository-layout.ts), and pinned with GIT_DIR and
 *   GIT_WORK_TREE, so `core.worktree` cannot make git compare the index with files elsewhere.
 * - GIT_OPTIONAL_LOCKS=0: reads never write the index; no prompts; the caller's GIT_* variables
 *   (a hook's GIT_DIR, GIT_EXTERNAL_DIFF) are dropped.
 * Overrides go in GIT_CONFIG_COUNT/KEY/VALUE rather than `-c`, which cannot carry a key whose
 * subsection holds "=" (`[filter "a=b"]`); child git processes inherit them.
 */
export type HostGit = {
  workTree: string;
  gitDir: string;
  /** The environment every run of this repository's git must use. */
  env: NodeJS.ProcessEnv;
  /** git's arguments for `args` (a subcommand and its arguments), with the driver-off flags added. */
  argv(args: string[]): string[];
};

export type OpenedHostGit = { kind: "repository"; git: HostGit } | { kind: "none" } | { kind: "refused"; reason: string };

/** Always overridden, whatever any scope says. */
const FIXED: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.quotepath", "off"], // paths come back as written, for the ignore rules to match
  ["log.showSignature", "false"],
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["push.gpgSign", "false"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["submodule.recurse", "false"],
  ["push.recurseSubmodules", "no"],
  ["protocol.ext.allow", "never"],
  ["protocol.fd.allow", "never"],
];

/** Keys that name a program, with the value that runs nothing (or the stock program). */
const PROGRAM_KEYS: ReadonlyArray<{ pattern: RegExp; harmless: (key: string) => string }> = [
  { pattern: /^filter\..+\.(clean|smudge|process)$/i, harmless: () => "" },
  { pattern: /^filter\..+\.required$/i, harmless: () => "false" },
  { pattern: /^diff\..+\.(command|textconv)$/i, harmless: () => "" },
  { pattern: /^diff\.external$/i, harmless: () => "" },
  { pattern: /^pager\..+$/i, harmless: () => "false" },
  { pattern: /^core\.sshcommand$/i, harmless: () => "ssh" },
  { pattern: /^core\.askpass$/i, harmless: () => "" },
  { pattern: /^(core|sequence)\.editor$/i, harmless: () => ":" },
  { pattern: /^gpg\.(.+\.)?program$/i, harmless: () => "false" },
  { pattern: /^remote\..+\.receivepack$/i, harmless: () => "git-receive-pack" },
  { pattern: /^remote\..+\.uploadpack$/i, harmless: () => "git-upload-pack" },
];
/** Lists of programs: an empty value empties the list, then the person's own are added back. */
const PROGRAM_LISTS = /^credential\.(.+\.)?helper$/i;
const UNTRUSTED_SCOPES = new Set(["local", "worktree"]);
/** Config keys that make git read another file (each later git process reads it again). */
const INCLUDE_KEY = /^include(if\..+)?\.path$/i;

/** Subcommands Cairn runs, and the flags that keep each from running a driver. */
const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  "rev-parse": [],
  "ls-files": [],
  "cat-file": [],
  diff: ["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"],
  show: ["--no-ext-diff", "--no-textconv", "--no-show-signature"],
  log: ["--no-ext-diff", "--no-textconv", "--no-show-signature"],
  status: ["--ignore-submodules=all"],
  add: [],
  commit: ["--no-verify"],
  push: ["--no-verify", "--receive-pack=git-receive-pack"],
};
/** Caller variables git would honour that are not Cairn's to pass on (the person's ssh setup is). */
const KEPT_GIT_VARIABLES = new Set(["GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS"]);

/** Prepares git for the repository `cwd` is in: finds and checks it, and lists its config once. */
export function openHostGit(cwd: string, options: { timeoutMs?: number } = {}): OpenedHostGit {
  const layout = findRepository(cwd);
  if (layout.kind !== "repository") return layout;
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("GIT_") || KEPT_GIT_VARIABLES.has(name)) env[name] = value;
  Object.assign(env, {
    GIT_DIR: layout.gitDir,
    GIT_WORK_TREE: layout.workTree,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
  });
  let listing: string;
  try {
    listing = execFileSync("git", ["config", "--list", "--show-scope", "-z"], {
      cwd: layout.workTree,
      env: withConfig(env, FIXED),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeoutMs ?? 5_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim().split("\n")[0];
    return { kind: "refused", reason: `git cannot read the repository's config (${stderr || (error as Error).message}); run git config --list --show-origin there to see which file (it runs nothing the config names).` };
  }
  const entries = parseConfigListing(listing);
  const include = entries.find((e) => UNTRUSTED_SCOPES.has(e.scope) && INCLUDE_KEY.test(e.key));
  if (include !== undefined) {
    return {
      kind: "refused",
      reason: `the repository's own config includes another file (${include.key} = ${include.value ?? ""}), which git would read again later and a command could change meanwhile; move those settings into .git/config (or your global config) and remove the include.`,
    };
  }
  const overrides = [...FIXED, ...programOverrides(entries)];
  const finalEnv = withConfig(env, overrides);
  return {
    kind: "repository",
    git: {
      workTree: layout.workTree,
      gitDir: layout.gitDir,
      env: finalEnv,
      argv: (args) => {
        const [subcommand, ...rest] = args;
        const flags = subcommand === undefined ? undefined : SUBCOMMANDS[subcommand];
        if (flags === undefined) throw new Error(`host git: "${subcommand}" is not a subcommand Cairn knows how to run safely; add it to SUBCOMMANDS with the flags that keep it from running drivers.`);
        if (subcommand === "cat-file" && rest.some((a) => /^--(textconv|filters)/.test(a))) throw new Error("host git: cat-file --textconv/--filters run the repository's drivers.");
        return [subcommand as string, ...flags, ...rest];
      },
    },
  };
}

export type ConfigEntry = { scope: string; key: string; value: string | undefined };

/** `git config --list --show-scope -z`: scope NUL key [LF value] NUL, repeated. */
export function parseConfigListing(listing: string): ConfigEntry[] {
  const fields = listing.split("\0");
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i] as string;
    const pair = fields[i + 1] as string;
    const newline = pair.indexOf("\n");
    entries.push(newline === -1 ? { scope, key: pair, value: undefined } : { scope, key: pair.slice(0, newline), value: pair.slice(newline + 1) });
  }
  return entries;
}

/**
 * The command-scope entries that undo every program the repository's own config names: the
 * person's last value where they set one, else the harmless value.
 */
export function programOverrides(entries: ConfigEntry[]): Array<[string, string]> {
  const untrustedKeys = new Map<string, string>();
  for (const entry of entries) if (UNTRUSTED_SCOPES.has(entry.scope)) untrustedKeys.set(normalKey(entry.key), entry.key);
  const trusted = (key: string) => entries.filter((e) => !UNTRUSTED_SCOPES.has(e.scope) && e.scope !== "command" && normalKey(e.key) === normalKey(key));
  const overrides: Array<[string, string]> = [];
  for (const [normal, key] of untrustedKeys) {
    if (PROGRAM_LISTS.test(key)) {
      overrides.push([key, ""]);
      for (const own of trusted(normal)) overrides.push([key, own.value ?? ""]);
      continue;
    }
    const rule = PROGRAM_KEYS.find((r) => r.pattern.test(key));
    if (rule === undefined) continue;
    const own = trusted(normal).at(-1);
    overrides.push([key, own?.value ?? rule.harmless(key)]);
  }
  return overrides;
}

/** Section and key are case-insensitive in git, the subsection is not. */
function normalKey(key: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === last) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}.${key.slice(first + 1, last)}.${key.slice(last + 1).toLowerCase()}`;
}

function withConfig(env: NodeJS.ProcessEnv, entries: ReadonlyArray<readonly [string, string]>): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...env, GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], i) => {
    result[`GIT_CONFIG_KEY_${i}`] = key;
    result[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return result;
}
