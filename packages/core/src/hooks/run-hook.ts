import { spawn } from "node:child_process";
import type { CommandSandbox } from "../sandbox/index.js";
import { agentSecrets, terminateGroup } from "../terminal/index.js";

/** How one hook process ended. */
export type HookRun =
  | { type: "exited"; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }
  | { type: "timeout"; stdout: string; stderr: string }
  | { type: "aborted" }
  | { type: "failed"; message: string };

export type RunHookOptions = {
  command: string;
  /** The workspace: the hook's cwd and CAIRN_PROJECT_DIR. */
  cwd: string;
  /** Written to stdin, then stdin is closed. */
  stdin: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The environment the hook starts from (default: Cairn's own, without its provider keys). */
  env?: NodeJS.ProcessEnv;
  /** After a timeout or abort: SIGTERM to the group, then SIGKILL after this long. */
  killGraceMs?: number;
  /** After the shell exits, how long to wait for output from processes it left holding the pipes. */
  lingerMs?: number;
  /**
   * Run the shell inside this sandbox (a workspace's hook: whatever it sources or runs, the model may
   * have written, so it gets a command's rights, not the person's). Its processes end with the shell.
   */
  sandbox?: CommandSandbox;
};

/** Output past this is dropped: a hook's reply is a few lines, not a log. */
const MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Runs `command` with /bin/sh in its own process group, the event JSON on stdin. Resolves when the
 * shell has exited and its output is read, or when the timeout or the signal has stopped the whole
 * group (the shell and everything it started). Never rejects.
 */
export async function runHook(options: RunHookOptions): Promise<HookRun> {
  if (options.signal?.aborted) return { type: "aborted" };
  let launch = { file: "/bin/sh", args: ["-c", options.command], env: hookEnv(options.env ?? process.env, options.cwd) };
  if (options.sandbox) {
    // The status wrapper of commands is not needed: bubblewrap exits with the shell's own status.
    // What runs may be the model's, so it goes without the person's tokens, as a command does.
    const wrapped = options.sandbox.wrap(launch.file, launch.args, { cwd: options.cwd, env: launch.env, dropSecrets: true });
    if (!wrapped.ok) return { type: "failed", message: wrapped.message };
    launch = { file: wrapped.file, args: wrapped.args, env: wrapped.env };
  }
  const child = spawn(launch.file, launch.args, {
    cwd: options.cwd,
    env: launch.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const pid = child.pid;
  if (pid === undefined) {
    const error = await new Promise<Error>((resolve) => child.once("error", resolve));
    return { type: "failed", message: `could not start ${launch.file}: ${error.message}` };
  }
  // A hook that exits without reading stdin closes the pipe under us: that is its right.
  child.stdin.on("error", () => {});
  child.stdin.end(options.stdin);
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);

  return new Promise<HookRun>((resolve) => {
    let settled = false;
    /** Set once the timeout or the signal has started killing: the exit that follows is theirs. */
    let stopping = false;
    let lingerTimer: NodeJS.Timeout | undefined;
    const settle = (run: HookRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(lingerTimer);
      options.signal?.removeEventListener("abort", onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(run);
    };
    const stop = async (run: () => HookRun) => {
      if (settled || stopping) return;
      stopping = true;
      await terminateGroup(pid, options.killGraceMs ?? 1_000).catch(() => undefined);
      settle(run());
    };
    const onAbort = () => void stop(() => ({ type: "aborted" }));
    const timer = setTimeout(() => void stop(() => ({ type: "timeout", stdout: stdout.text(), stderr: stderr.text() })), options.timeoutMs);
    options.signal?.addEventListener("abort", onAbort, { once: true });

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const exited = () => exit && !stopping && settle({ type: "exited", ...exit, stdout: stdout.text(), stderr: stderr.text() });
    child.on("error", () => {}); // a failed kill(); the exit or the timeout still settles
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Processes the hook left behind may hold the pipes open; do not wait on them for long.
      lingerTimer = setTimeout(exited, options.lingerMs ?? 200);
    });
    child.on("close", exited);
  });
}

/** The caller's environment without Cairn's provider keys, plus where the project is. */
function hookEnv(base: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, CAIRN_PROJECT_DIR: cwd, CLAUDE_PROJECT_DIR: cwd };
  for (const name of agentSecrets) delete env[name];
  return env;
}

function collect(stream: NodeJS.ReadableStream): { text(): string } {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on("data", (chunk: Buffer) => {
    if (size >= MAX_OUTPUT_BYTES) return;
    const kept = chunk.subarray(0, MAX_OUTPUT_BYTES - size);
    chunks.push(kept);
    size += kept.length;
  });
  stream.on("error", () => {});
  return { text: () => Buffer.concat(chunks).toString("utf8") };
}
