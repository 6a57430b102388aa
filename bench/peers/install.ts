/**
 * The peers' own packages, installed from npm at bench time into a cache outside the repository
 * (CAIRN_BENCH_PEERS_DIR, else ~/.cache/cairn-bench/peers/<name>@<version>), pinned, never in
 * package.json. A package that does not install or whose command does not answer `--version` gives
 * a reason in one line instead of a path, so the bench can say so and go on.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export type Installed = { bin: string; version: string } | { reason: string };

export function peersDir(): string {
  return process.env.CAIRN_BENCH_PEERS_DIR ?? path.join(os.homedir(), ".cache", "cairn-bench", "peers");
}

/** Runs a command to its end (killed after `timeoutMs`): its exit code and the tail of its output. */
export function exec(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    const keep = (d: Buffer) => void (output = (output + d.toString("utf8")).slice(-4000));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => {
      output += `\n(killed after ${options.timeoutMs / 1000} s)`;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: error.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      killGroup(child.pid);
      resolve({ code, output });
    });
  });
}

/** SIGKILL to a process group; nothing when it is already gone. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: every process of the group has ended.
  }
}

export const lastLine = (text: string): string => text.trim().split("\n").filter((l) => l.trim() !== "").at(-1)?.trim().slice(0, 200) ?? "no output";

/** npm's own reason (its code and first message, not the pointer to its log), else the output's last line. */
function npmError(output: string): string {
  const lines = output.split("\n").filter((l) => l.startsWith("npm error") && !l.includes("complete log"));
  const code = lines.map((l) => /^npm error code (\S+)/.exec(l)?.[1]).find((c) => c !== undefined);
  const message = lines.find((l) => !l.startsWith("npm error code "))?.replace(/^npm error\s+([a-z]+\s+(?=[A-Z]))?/, "");
  return message === undefined ? lastLine(output) : `${code ? `${code}: ` : ""}${message.slice(0, 200)}`;
}

/**
 * `pkg@version` installed in its own folder of the cache (reused once it has answered `--version`),
 * and the path of its command `binName`.
 */
export async function installPeer(pkg: string, version: string, binName: string): Promise<Installed> {
  const dir = path.join(peersDir(), `${pkg.split("/").at(-1)}@${version}`);
  const bin = path.join(dir, "node_modules", ".bin", binName);
  const marker = path.join(dir, ".installed");
  if (!existsSync(marker)) {
    // A folder without the marker is a broken or interrupted install: start again.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    process.stderr.write(`  installing ${pkg}@${version} into ${dir}\n`);
    const installed = await exec("npm", ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefix", dir, `${pkg}@${version}`], { cwd: dir, timeoutMs: 600_000 });
    if (installed.code !== 0 || !existsSync(bin)) rmSync(dir, { recursive: true, force: true });
    if (installed.code !== 0) return { reason: `npm install ${pkg}@${version} failed (${installed.code ?? "not started"}): ${npmError(installed.output)}` };
    if (!existsSync(bin)) return { reason: `${pkg}@${version} installed no \`${binName}\` command` };
  }
  const answered = await exec(bin, ["--version"], { cwd: dir, timeoutMs: 60_000 });
  if (answered.code !== 0) return { reason: `\`${binName} --version\` of ${pkg}@${version} failed (${answered.code ?? "not started"}): ${lastLine(answered.output)}` };
  writeFileSync(marker, `${version}\n`);
  return { bin, version: lastLine(answered.output) };
}
