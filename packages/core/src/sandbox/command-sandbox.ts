import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import type { SandboxJson } from "../events/index.js";
import { blockedWriteNote } from "./blocked-write.js";
import { bwrapArgs, contains, type BwrapPlan } from "./bwrap-args.js";
import { sandboxedEnv } from "./command-env.js";
import { existingMasks } from "./hidden-paths.js";
import { ignoredPaths } from "./ignored-paths.js";
import type { IsolatedNetwork } from "./isolated-network.js";

/** What hosts show (the system/init event): the sandbox in force, or why there is none. */
export type SandboxSummary = SandboxJson;

/** A task's sandbox as a host opened it: the one commands run in (none when off), and how to describe it. */
export type TaskSandbox = { sandbox: CommandSandbox | undefined; summary: SandboxSummary };

/**
 * Files and folders of the workspace root that widen permissions or run code: read-only to commands.
 * The whole .git, folder or file, as Codex and Claude Code keep it: any file in it can make the
 * person's git (or Cairn's own, on the host) run code: config, hooks, a commondir or a config
 * include pointing at a copy, modules/<name>/config, worktrees. A mount point cannot be renamed
 * or removed either, so `mv .git x && mkdir .git` fails too.
 */
const PROTECTED = [".cairnignore", ".clineignore", ".cairn", ".mcp.json", ".git"];

/**
 * Runs inside the sandbox around the command: reports the shell's exit status on fd 3 as soon as
 * it exits, then waits while anything it started still runs. bubblewrap ends the PID namespace,
 * and so every process in it, when its first process exits; this keeps background processes
 * (a dev server started with &) alive as they are without the sandbox, until the command's
 * group is ended. fd 3 is closed for the command itself, so it cannot forge its status; its
 * stderr joins stdout (one pipe keeps the order of what it wrote, as the terminal wants).
 */
const STATUS_WRAPPER = `"$@" 2>&1 3>&-; code=$?; echo "$code" >&3; exec 3>&- >/dev/null 2>&1 </dev/null
while :; do
  others=
  for p in /proc/[0-9]*; do case \${p#/proc/} in 1|$$) ;; *) others=1; break ;; esac; done
  [ -z "$others" ] && exit "$code"
  sleep 0.1
done`;

export type SandboxConfig = {
  bwrap: string;
  mode: "workspace-write" | "read-only";
  network: "on" | "off";
  /** Real path of the workspace. */
  workspace: string;
  /** Paths commands must not see: CAIRN_HOME, credentials, settings' hiddenPaths. */
  hiddenPaths: string[];
  /** Existing real folders writable besides the workspace and /tmp. */
  writablePaths: string[];
  /** Secret-looking variables that commands keep (settings' passEnv); the rest go (command-env.ts). */
  passEnv?: string[];
  /** With network on: the namespace commands enter (the outside world, not the host's loopback); undefined shares the host's network. */
  isolatedNetwork?: IsolatedNetwork;
  /** The seccomp filter's file (seccomp-filter.ts); undefined where none is built for this machine. */
  seccompFilter?: string;
  /** Whether bubblewrap can give a process no network here (probed once, when first asked); undefined: it can. */
  canUnshareNet?: () => boolean;
};

/** Folders one process (an MCP server) may write besides the task's: existing real paths. */
export type OwnFolders = {
  /** Writable like settings' writablePaths (a hidden path inside stays hidden). */
  writable?: string[];
  /** Its state folder: writable even inside hidden CAIRN_HOME, the rest of which it still cannot see. */
  stateFolder?: string;
};

/** The descriptor the filter reaches bubblewrap on, clear of stdio and the status pipe (fd 3). */
const SECCOMP_FD = 9;
/** Opens the filter for bubblewrap and runs the rest of the line (nsenter, bwrap) in its place. */
const WITH_FILTER = `exec "$@" ${SECCOMP_FD}<"$0"`;

export type Wrapped = { ok: true; file: string; args: string[]; env: NodeJS.ProcessEnv } | { ok: false; message: string };

/** The OS sandbox of one task: how to start a command in it, and how to describe it. */
export class CommandSandbox {
  readonly mode: "workspace-write" | "read-only";
  readonly network: "on" | "off";
  readonly workspace: string;

  constructor(private readonly config: SandboxConfig) {
    this.mode = config.mode;
    this.network = config.network;
    this.workspace = config.workspace;
  }

  /** The network namespace commands run in with network on (none: the host's network, or off); the browser starts inside it too. */
  get browserNetwork(): { enter: IsolatedNetwork["enter"]; bwrap: string } | undefined {
    const isolated = this.network === "on" ? this.config.isolatedNetwork : undefined;
    return isolated === undefined ? undefined : { enter: () => isolated.enter(), bwrap: this.config.bwrap };
  }

  /** A command may come soon: the network namespace commands enter starts now, in the background (see IsolatedNetwork.prepare). */
  prepareNetwork(): void {
    if (this.network === "on") this.config.isolatedNetwork?.prepare();
  }

  /** Resolves once what `wrap` needs is made (the network namespace), waiting without holding this thread as `wrap` would. */
  async ready(): Promise<void> {
    if (this.network === "on") await this.config.isolatedNetwork?.ready();
  }

  /**
   * `file args` to run inside the sandbox, with the masks as the workspace is now. With
   * `reportStatus`, the command runs, stderr joined to stdout, under a small shell that reports its exit on fd 3 (the
   * spawner must open fd 3 as a pipe) and keeps the sandbox up while its background processes run.
   * With `dropSecrets` (a command the model wrote), variables named like secrets are left out
   * unless settings' passEnv names them; without it (an MCP server the person configured with its
   * own token) the environment is kept. The person's agents' socket addresses go either way.
   * With `network: "off"` (a language server: it needs none) the process gets no network whatever
   * the task's setting, except where bubblewrap cannot take it away here (then it has the task's).
   */
  wrap(
    file: string,
    args: readonly string[],
    options: { cwd: string; env: NodeJS.ProcessEnv; reportStatus?: boolean; newSession?: boolean; dropSecrets?: boolean; network?: "off" } & OwnFolders,
  ): Wrapped {
    const ignored = ignoredPaths(this.workspace);
    if (!ignored.ok) {
      return {
        ok: false,
        message: `Not run: the sandbox could not mask the workspace's ignored files (${ignored.reason}). Ask the person to narrow .cairnignore, or to run with --sandbox off.`,
      };
    }
    const networkOn = this.network === "on" && !(options.network === "off" && (this.config.canUnshareNet?.() ?? true));
    const network = networkOn ? this.config.isolatedNetwork?.enter() : undefined;
    if (network !== undefined && !network.ok) {
      return {
        ok: false,
        message: `Not run: the sandbox's network could not start (${network.reason}). Ask the person to fix it, or to set "sandbox": {"allowLocalhost": true} (commands then share this machine's network) or "network": "off".`,
      };
    }
    const plan: BwrapPlan = {
      workspace: this.workspace,
      readOnlyWorkspace: this.mode === "read-only",
      writable: [...this.config.writablePaths, ...(options.writable ?? []), ...(options.stateFolder === undefined ? [] : [options.stateFolder])],
      ...(options.stateFolder === undefined ? {} : { ownWritable: [options.stateFolder] }),
      visibleInTmp: programFoldersInTmp([file, ...args, options.cwd], this.workspace),
      protectedPaths: existingMasks([...PROTECTED.map((p) => path.join(this.workspace, p)), ...gitFileTarget(this.workspace)]).filter((m) =>
        contains(this.workspace, m.path),
      ),
      hidden: existingMasks(this.config.hiddenPaths),
      masked: ignored.masks,
      // In the isolated namespace already, or on the host's network when the person allows it.
      network: networkOn,
      resolvConf: network?.resolvConf,
      seccompFd: this.config.seccompFilter === undefined ? undefined : SECCOMP_FD,
      newSession: options.newSession === true,
      dropCapabilities: process.getuid?.() === 0,
      cwd: options.cwd,
    };
    const command = options.reportStatus ? ["/bin/sh", "-c", STATUS_WRAPPER, "sh", file, ...args] : [file, ...args];
    const line = [...(network?.prefix ?? []), this.config.bwrap, ...bwrapArgs(plan), "--", ...command];
    const env = this.env(options.env, options.dropSecrets === true);
    if (this.config.seccompFilter === undefined) return { ok: true, file: line[0]!, args: line.slice(1), env };
    return { ok: true, file: "/bin/sh", args: ["-c", WITH_FILTER, this.config.seccompFilter, ...line], env };
  }

  /** One line for the system prompt: what commands may do. */
  promptLine(): string {
    const write = this.mode === "read-only" ? "you cannot write files (only /tmp)" : "you can write only inside the workspace and /tmp";
    const network =
      this.network === "off" ? "off" : this.config.isolatedNetwork ? "on, to the outside only (servers on this machine's localhost are out of reach)" : "on";
    return `Commands run in a sandbox: ${write}; network is ${network}.`;
  }

  summary(): SandboxSummary {
    return { mode: this.mode, network: this.network, engine: "bubblewrap" };
  }

  /** The note to add to a command's result when its output shows the sandbox blocked a write. */
  explainBlock(output: string): string | undefined {
    return blockedWriteNote(output, {
      workspace: this.workspace,
      readOnlyWorkspace: this.mode === "read-only",
      writable: this.config.writablePaths,
    });
  }

  /** A TMPDIR outside the writable set would fail every temp file; point it at the private /tmp. */
  private env(base: NodeJS.ProcessEnv, dropSecrets: boolean): NodeJS.ProcessEnv {
    const env = sandboxedEnv(base, { dropSecrets, passEnv: this.config.passEnv ?? [] });
    const tmp = env.TMPDIR;
    if (tmp === undefined || contains("/tmp", tmp) || (this.mode === "workspace-write" && contains(this.workspace, tmp))) return env;
    return { ...env, TMPDIR: "/tmp" };
  }
}

/**
 * The sandbox's /tmp is private, which would hide a program that lives under the real /tmp (a
 * checkout there with its node_modules, an MCP server's script): the top folder under /tmp of each
 * absolute, existing path the command names is kept visible, read-only. Masks and hidden paths are
 * mounted after it, so they still cover what lies inside.
 */
export function programFoldersInTmp(paths: readonly string[], workspace: string): string[] {
  const folders = new Set<string>();
  for (const candidate of paths) {
    if (!path.isAbsolute(candidate) || !contains("/tmp", candidate) || candidate === "/tmp" || contains(workspace, candidate)) continue;
    if (!existsSync(candidate)) continue;
    const top = path.join("/tmp", path.relative("/tmp", candidate).split(path.sep)[0]!);
    folders.add(top);
  }
  return [...folders];
}

/**
 * Where a `.git` file (a worktree's or a submodule's checkout) points, when that is a folder: it
 * holds the repository the person's git trusts, and is protected with `.git` where it lies inside
 * the workspace (outside, the read-only root already covers it).
 */
function gitFileTarget(workspace: string): string[] {
  const dotGit = path.join(workspace, ".git");
  try {
    if (!lstatSync(dotGit).isFile()) return [];
    const line = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8").slice(0, 4096));
    return line ? [path.resolve(workspace, line[1]!)] : [];
  } catch {
    return [];
  }
}
