import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const cairnBin = path.join(repoRoot, "packages/cli/bin/cairn.js");

export type CliRun = {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as NDJSON (only meaningful with --json). */
  events: Array<Record<string, unknown> & { type: string }>;
};

/** Environment a test run starts from: no keys or Cairn settings leak in from the machine. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (/^(CAIRN_|ANTHROPIC_|OPENAI_|OPENROUTER_|DEEPSEEK_)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** Runs the real `cairn` binary as a child process. */
export function runCairn(args: string[], options: { env: Record<string, string>; cwd?: string; input?: string; timeoutMs?: number }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cairnBin, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`cairn ${args.join(" ")} timed out.\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const events = stdout
        .split("\n")
        .filter((l) => l.trim().startsWith("{"))
        .map((l) => JSON.parse(l) as CliRun["events"][number]);
      resolve({ code, stdout, stderr, events });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** A fresh temp folder (real path), removed by the returned cleanup. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), `cairn-${prefix}-`)));
  // A cairn process that was just told to stop may still be writing its last journal lines.
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }) };
}

/** A tool call as the xml protocol writes it. */
export function xmlCall(name: string, params: Record<string, string>): string {
  const inner = Object.entries(params)
    .map(([k, v]) => `<${k}>${v.includes("\n") ? `\n${v}\n` : v}</${k}>`)
    .join("\n");
  return `<${name}>\n${inner}\n</${name}>`;
}

/** A running `cairn` whose stdout lines can be awaited, to act (kill -9) at a chosen moment. */
export function startCairn(args: string[], options: { env: Record<string, string>; cwd?: string }) {
  const child = spawn(process.execPath, [cairnBin, ...args], { cwd: options.cwd ?? repoRoot, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters: Array<{ test: (line: string) => boolean; resolve: (line: string) => void }> = [];
  let buffered = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      for (const w of [...waiters]) if (w.test(line)) waiters.splice(waiters.indexOf(w), 1) && w.resolve(line);
    }
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    /** Resolves with the first stdout line (from now on) that passes the test. */
    waitForLine(test: (line: string) => boolean, timeoutMs = 15_000): Promise<string> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching line within ${timeoutMs} ms.\nstdout:\n${stdout}\nstderr:\n${stderr}`)), timeoutMs);
        waiters.push({ test, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      });
    },
  };
}
