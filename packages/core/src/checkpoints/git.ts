import { execFile, spawn } from "node:child_process";
import { joinNulNames, splitNulNames } from "../disk/byte-names.js";

/** The identity every checkpoint commit carries; never the person's own name or signing key. */
export const checkpointAuthor = { name: "Cairn", email: "checkpoints@cairn.invalid" } as const;

/** Git's well-known empty tree: the base of the first checkpoint. */
export const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** Where a shadow repository lives and which folder it snapshots. */
export type ShadowLocation = {
  /** The shadow repository itself (GIT_DIR); its index, config, HOME and locks are all in here. */
  gitDir: string;
  /** The workspace (GIT_WORK_TREE), a real path. */
  workTree: string;
};

export type GitResult = { code: number; stdout: Buffer; stderr: string };

export type GitOptions = {
  /** Written to git's stdin. */
  input?: string | Buffer;
  /** Exit codes that are not failures (git uses 1 for "partly done" or "no match" in several commands). */
  okCodes?: readonly number[];
  /** Overrides GIT_INDEX_FILE, e.g. for a throwaway index. */
  indexFile?: string;
};

/** A git command of the shadow repository failed; the message says which and why. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number,
    readonly stderr: string,
    gitDir: string,
  ) {
    super(
      `git ${args.join(" ").slice(0, 200)} exited with ${code}: ${stderr.trim().slice(0, 2000) || "(no output)"}\n` +
        `(checkpoint store ${gitDir}; if this keeps failing, delete that folder to start this workspace's checkpoints afresh)`,
    );
    this.name = "GitError";
  }
}

/**
 * The whole environment git sees. Nothing is inherited from the person's git setup: GIT_* variables
 * are dropped (a stray GIT_DIR or GIT_INDEX_FILE would point us at their repository), the system
 * and global config are off and HOME points into the shadow folder, so their hooks, signing,
 * fsmonitor, filters and aliases cannot run.
 */
export function gitEnvironment(location: ShadowLocation, indexFile?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("GIT_")) env[key] = value;
  }
  return {
    ...env,
    GIT_DIR: location.gitDir,
    GIT_WORK_TREE: location.workTree,
    GIT_INDEX_FILE: indexFile ?? `${location.gitDir}/index`,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: `${location.gitDir}/no-global-config`,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_TERMINAL_PROMPT: "0",
    HOME: location.gitDir,
    XDG_CONFIG_HOME: location.gitDir,
    LC_ALL: "C",
    LANGUAGE: "C",
    GIT_AUTHOR_NAME: checkpointAuthor.name,
    GIT_AUTHOR_EMAIL: checkpointAuthor.email,
    GIT_COMMITTER_NAME: checkpointAuthor.name,
    GIT_COMMITTER_EMAIL: checkpointAuthor.email,
  };
}

/** Settings forced on every command line, whatever the shadow config file says. */
const forcedSettings = ["core.hooksPath=/dev/null", "commit.gpgsign=false", "core.fsmonitor=false", "gc.auto=0", "advice.addEmbeddedRepo=false"];
const forcedConfig = forcedSettings.flatMap((setting) => ["-c", setting]);

/** git's arguments for a subcommand, with the forced settings in front. */
export function gitArguments(args: readonly string[]): string[] {
  return [...forcedConfig, ...args];
}

/** Runs system git against the shadow repository and collects its output. */
export function runGit(location: ShadowLocation, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const fullArgs = gitArguments(args);
  return new Promise((resolve, reject) => {
    const child = spawn("git", fullArgs, {
      cwd: location.workTree,
      env: gitEnvironment(location, options.indexFile),
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? new Error(`Checkpoints need git, which was not found on PATH. Install git ${minimumGit.join(".")} or newer to enable checkpoints.`)
          : error,
      );
    });
    child.on("close", (code, signal) => {
      const result: GitResult = { code: code ?? 128, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString("utf8") };
      const ok = options.okCodes ?? [0];
      if (signal === null && ok.includes(result.code)) resolve(result);
      else reject(new GitError(args, result.code, signal ? `killed by ${signal}. ${result.stderr}` : result.stderr, location.gitDir));
    });
    // git may exit before reading all its input (e.g. a fatal error); that is reported through `close`.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
  });
}

/** The forced settings as environment (GIT_CONFIG_COUNT, 2.31), for a shell whose every git must see them. */
export function gitConfigEnvironment(): NodeJS.ProcessEnv {
  const config: NodeJS.ProcessEnv = { GIT_CONFIG_COUNT: String(forcedSettings.length) };
  forcedSettings.forEach((setting, i) => {
    const at = setting.indexOf("=");
    config[`GIT_CONFIG_KEY_${i}`] = setting.slice(0, at);
    config[`GIT_CONFIG_VALUE_${i}`] = setting.slice(at + 1);
  });
  return config;
}

/** `repack --geometric` (2.33), GIT_CONFIG_GLOBAL (2.32), an untracked cache for `status -uall` (2.38 uses it; older git just scans). */
export const minimumGit = [2, 33] as const;

let versionCheck: Promise<void> | undefined;

/** `git --version` as its own process (where no checkpoint store's shell is at hand). */
export function gitVersionOutput(): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    execFile("git", ["--version"], { env: { PATH: process.env.PATH ?? "" } }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

/**
 * Fails with a clear message when the system git is too old; checked once per process.
 * `versionOutput` runs `git --version`: a store passes its shell's, so the check forks no copy of
 * the agent's process (~8 ms of its main thread at start-up).
 */
export function checkGitVersion(versionOutput: () => Promise<string> = gitVersionOutput): Promise<void> {
  versionCheck ??= versionOutput().then(
    (stdout) => {
      const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(stdout) ?? []).slice(1).map(Number);
      const [needMajor, needMinor] = minimumGit;
      if (major > needMajor || (major === needMajor && minor >= needMinor)) return;
      throw new Error(`Checkpoints need git ${minimumGit.join(".")} or newer; found ${stdout.trim()}. Upgrade git to enable checkpoints.`);
    },
    (error: unknown) => {
      versionCheck = undefined;
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`Checkpoints need git, which could not be run (${message}). Install git ${minimumGit.join(".")} or newer.`);
    },
  );
  return versionCheck;
}

/**
 * Splits NUL-terminated output (`-z`) into its records. File names are decoded without loss (see
 * disk/byte-names.ts): a name that is not UTF-8 keeps its bytes, for `joinNul` and `fsName`.
 */
export function splitNul(output: Buffer | string): string[] {
  return splitNulNames(output);
}

/** Joins paths for `--stdin -z` style input, each as its exact bytes. */
export function joinNul(paths: readonly string[]): Buffer {
  return joinNulNames(paths);
}
