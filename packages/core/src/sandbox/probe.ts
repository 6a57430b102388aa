import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { probeKey, probeSucceededBefore, rememberProbeSuccess } from "./probe-cache.js";

export type Probe = { ok: true; bwrap: string } | { ok: false; reason: string };

const cache = new Map<string, Probe>();

/** bubblewrap's path on `PATH`, or undefined. */
export function findBubblewrap(pathVariable: string | undefined): string | undefined {
  return findProgram("bwrap", pathVariable);
}

/** An executable's path on `PATH`, or undefined. */
export function findProgram(name: string, pathVariable: string | undefined): string | undefined {
  for (const dir of (pathVariable ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Whether bubblewrap is installed and can start a sandbox here, checked once per process (per
 * PATH and network choice): it may be missing, or be refused user namespaces (Docker's default
 * seccomp profile, kernels with unprivileged namespaces off, WSL1). With `cairnHome`, a success is
 * remembered there across runs for as long as nothing that decides it changes (probe-cache.ts).
 */
export function probeBubblewrap(pathVariable: string | undefined, unshareNet: boolean, cairnHome?: string): Probe {
  const key = `${pathVariable ?? ""}\0${unshareNet}\0${cairnHome ?? ""}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const probe = runProbe(pathVariable, unshareNet, cairnHome);
  cache.set(key, probe);
  return probe;
}

function runProbe(pathVariable: string | undefined, unshareNet: boolean, cairnHome: string | undefined): Probe {
  if (process.platform !== "linux") return { ok: false, reason: `no OS sandbox for ${process.platform} yet (bubblewrap is Linux only)` };
  const bwrap = findBubblewrap(pathVariable);
  if (bwrap === undefined) return { ok: false, reason: "bubblewrap (bwrap) is not on PATH" };
  const known = cairnHome === undefined ? undefined : probeKey(bwrap, unshareNet);
  if (known !== undefined && probeSucceededBefore(cairnHome!, known)) return { ok: true, bwrap };
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-pid", "--unshare-ipc", "--die-with-parent"];
  if (unshareNet) args.push("--unshare-net");
  const run = spawnSync(bwrap, [...args, "true"], { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000, encoding: "utf8" });
  if (run.status === 0) {
    if (known !== undefined) rememberProbeSuccess(cairnHome!, known);
    return { ok: true, bwrap };
  }
  const detail = (run.stderr ?? "").trim().split("\n")[0] || run.error?.message || `exit ${run.status ?? run.signal}`;
  return { ok: false, reason: `bubblewrap cannot start a sandbox here (${detail})` };
}
