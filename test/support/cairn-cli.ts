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
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A tool call as the xml protocol writes it. */
export function xmlCall(name: string, params: Record<string, string>): string {
  const inner = Object.entries(params)
    .map(([k, v]) => `<${k}>${v.includes("\n") ? `\n${v}\n` : v}</${k}>`)
    .join("\n");
  return `<${name}>\n${inner}\n</${name}>`;
}
