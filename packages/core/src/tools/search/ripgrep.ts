/**
 * Finding and running ripgrep. The binary comes from @vscode/ripgrep (its optional platform package,
 * e.g. @vscode/ripgrep-linux-x64, ships rg; nothing is downloaded). When optional dependencies were
 * omitted (`npm install --omit=optional`) or the platform has no package, the system's ripgrep is
 * used instead: `rg` on PATH, e.g. Debian's `ripgrep` package (`apt install ripgrep`, rg 13+).
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";

/** Said when neither the npm package's binary nor a system `rg` exists. */
export const ripgrepMissingMessage =
  "ripgrep (rg) is not installed, so files cannot be searched. Either install the npm package's binary " +
  `(@vscode/ripgrep-${process.platform}-${process.arch}, an optional dependency of @vscode/ripgrep: reinstall without --omit=optional) ` +
  "or install ripgrep on the system so that `rg` is on PATH (Debian/Ubuntu: apt install ripgrep). " +
  "Until then, use list_files and read_file to look through files.";

/**
 * The rg binary to run: the one shipped by @vscode/ripgrep's platform package, else `rg` on PATH
 * (e.g. Debian's ripgrep when optional dependencies were omitted). Undefined when neither exists.
 */
export async function locateRipgrep(candidates: {
  packageBinary: string | undefined;
  pathEnv: string | undefined;
}): Promise<string | undefined> {
  if (candidates.packageBinary !== undefined && (await isExecutableFile(candidates.packageBinary))) {
    return candidates.packageBinary;
  }
  const name = process.platform === "win32" ? "rg.exe" : "rg";
  for (const dir of (candidates.pathEnv ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

let located: Promise<string | undefined> | undefined;

/**
 * Resolved once per process. Only a found binary is remembered, so installing ripgrep while
 * Cairn runs takes effect on the next search.
 */
export async function ripgrepBinary(): Promise<string | undefined> {
  located ??= locateRipgrep({ packageBinary: await packageBinary(), pathEnv: process.env.PATH });
  const binary = await located;
  if (binary === undefined) located = undefined;
  return binary;
}

/** @vscode/ripgrep throws at import time when its platform package is missing. */
async function packageBinary(): Promise<string | undefined> {
  try {
    const { rgPath } = await import("@vscode/ripgrep");
    return rgPath;
  } catch {
    return undefined;
  }
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** What a line handler tells the runner: keep reading, or kill rg because enough was read. */
export type LineVerdict = "more" | "stop";

export type RipgrepRun = {
  /** rg's exit code; null when it was killed. */
  exitCode: number | null;
  /** True when the line handler asked to stop and rg was killed before it finished. */
  stopped: boolean;
  /** rg's error output (capped). */
  stderr: string;
};

const STDERR_LIMIT = 16 * 1024;

/**
 * Runs rg with stdin ignored and hands each stdout line to `onLine` as it streams in. When
 * `onLine` says "stop", rg is killed and the rest of its output is never read; `signal` kills it too.
 */
export function runRipgrep(
  binary: string,
  args: readonly string[],
  options: { cwd: string; signal: AbortSignal; onLine: (line: string) => LineVerdict },
): Promise<RipgrepRun> {
  return new Promise((resolve, reject) => {
    options.signal.throwIfAborted();
    const child = spawn(binary, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stopped = false;
    let pending = "";
    let stderr = "";

    const stop = () => {
      if (stopped) return;
      stopped = true;
      child.kill();
    };
    const onAbort = () => stop();
    options.signal.addEventListener("abort", onAbort, { once: true });

    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stopped) return;
      const text = pending + chunk;
      let start = 0;
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
        if (options.onLine(text.slice(start, end)) === "stop") {
          stop();
          return;
        }
        start = end + 1;
      }
      pending = text.slice(start);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk.slice(0, STDERR_LIMIT - stderr.length);
    });

    child.on("error", (error) => {
      options.signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (code) => {
      options.signal.removeEventListener("abort", onAbort);
      if (options.signal.aborted) {
        reject(options.signal.reason);
        return;
      }
      if (!stopped && pending !== "") options.onLine(pending);
      resolve({ exitCode: code, stopped, stderr });
    });
  });
}
