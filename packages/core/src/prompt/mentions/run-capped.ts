import { spawn } from "node:child_process";

export type CappedRun = {
  /** The first `maxBytes` of what the process wrote (stdout and stderr interleaved when merged). */
  output: string;
  /** stderr, when not merged (its first 4 KB). */
  stderr: string;
  /** null when the process was killed (timeout) or could not start. */
  exitCode: number | null;
  timedOut: boolean;
  /** True when the output went past `maxBytes`. */
  cut: boolean;
  /** Bytes written in all (a lower bound when `stopWhenFull` ended the process early). */
  totalBytes: number;
  /** Set when the process could not be started. */
  startError?: string;
};

export type CappedRunOptions = {
  cwd: string;
  signal?: AbortSignal;
  timeoutMs: number;
  maxBytes: number;
  /** stderr goes into `output` too (a checker's diagnostics may go to either). */
  mergeStderr?: boolean;
  /** Kill the process once the cap is reached, when the rest is not worth waiting for (a big diff). */
  stopWhenFull?: boolean;
  /** Run `file` through the system shell (a command line the person configured). */
  shell?: boolean;
  /** The environment to start from (default: Cairn's own). */
  env?: NodeJS.ProcessEnv;
};

const STDERR_BYTES = 4096;

/**
 * Runs a process without a terminal: stdin closed, no pager, no prompts, no colour. Output is
 * kept up to a cap; the process (its whole group) is killed at the timeout or when the caller
 * aborts, in which case this rejects with the abort reason.
 */
export function runCapped(file: string, args: string[], options: CappedRunOptions): Promise<CappedRun> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    const child = spawn(file, args, {
      cwd: options.cwd,
      shell: options.shell === true,
      detached: process.platform !== "win32", // its own process group, so a timeout kills its children too
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", PAGER: "cat", CI: "1", NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let totalBytes = 0;
    let cut = false;
    let stderr = "";
    let timedOut = false;
    let aborted = false;

    const kill = () => {
      try {
        if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        child.kill("SIGKILL"); // the group is already gone; make sure the child is
      }
    };
    const collect = (data: Buffer) => {
      totalBytes += data.length;
      if (kept < options.maxBytes) {
        const part = data.subarray(0, options.maxBytes - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (totalBytes > options.maxBytes && !cut) {
        cut = true;
        if (options.stopWhenFull) kill();
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", (data: Buffer) => {
      if (options.mergeStderr) collect(data);
      else if (stderr.length < STDERR_BYTES) stderr += data.toString("utf8").slice(0, STDERR_BYTES - stderr.length);
    });

    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const finish = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };

    child.on("error", (error) => {
      finish();
      resolve({ output: "", stderr: "", exitCode: null, timedOut: false, cut: false, totalBytes: 0, startError: error.message });
    });
    child.on("close", (code) => {
      finish();
      if (aborted) {
        reject(options.signal?.reason);
        return;
      }
      const output = Buffer.concat(chunks).toString("utf8").replace(/\uFFFD$/, "");
      resolve({ output, stderr, exitCode: timedOut ? null : code, timedOut, cut, totalBytes });
    });
  });
}
