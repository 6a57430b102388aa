import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeFileAtomicSync } from "../disk/atomic-write.js";

/**
 * Remembers, under CAIRN_HOME, that bubblewrap started a sandbox here, so a later `cairn` skips the
 * probe (a fork of the whole agent process: ~15 ms of its main thread on every run).
 *
 * Only a success is kept. A success that went stale cannot weaken anything: commands still run
 * through bwrap and fail with its own message, never outside the sandbox. A failure is always
 * probed again, so installing bubblewrap or allowing user namespaces takes effect on the next run.
 *
 * The key is everything that decides whether bwrap can start: the binary itself (path, inode, size,
 * mtime, mode: a reinstall or a changed setuid bit), the network choice, who runs it, the kernel
 * boot, the namespaces and seccomp/no_new_privs state this process lives in (another container, a
 * sandbox inside a sandbox) and the sysctls that allow user namespaces.
 */

const cacheFile = (cairnHome: string) => path.join(cairnHome, "cache", "sandbox-probe.json");

function read(file: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return "-";
  }
}

function link(file: string): string {
  try {
    return readlinkSync(file);
  } catch {
    return "-";
  }
}

/** A hash of what decides whether bwrap at `bwrap` can start a sandbox for this process, or undefined when bwrap cannot be stat'ed. */
export function probeKey(bwrap: string, unshareNet: boolean): string | undefined {
  const stat = statSync(bwrap, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  const status = read("/proc/self/status")
    .split("\n")
    .filter((line) => /^(Seccomp|NoNewPrivs|CapEff|CapBnd):/.test(line))
    .join(";");
  const parts = [
    bwrap,
    stat.dev,
    stat.ino,
    stat.size,
    stat.mtimeMs,
    stat.ctimeMs,
    stat.mode,
    stat.uid,
    unshareNet,
    process.getuid?.(),
    process.getgid?.(),
    os.release(),
    read("/proc/sys/kernel/random/boot_id"),
    ...["user", "mnt", "pid", "net", "ipc", "uts", "cgroup"].map((ns) => link(`/proc/self/ns/${ns}`)),
    status,
    read("/proc/self/attr/current"),
    read("/proc/sys/kernel/unprivileged_userns_clone"),
    read("/proc/sys/user/max_user_namespaces"),
    read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
  ];
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

function stored(cairnHome: string): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(cacheFile(cairnHome), "utf8"));
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === "string") : [];
  } catch {
    return [];
  }
}

/** Whether a probe with this key succeeded before. */
export function probeSucceededBefore(cairnHome: string, key: string): boolean {
  return stored(cairnHome).includes(key);
}

/** Records a successful probe; a cache that cannot be written is only a slower next start. */
export function rememberProbeSuccess(cairnHome: string, key: string): void {
  try {
    const file = cacheFile(cairnHome);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // A few keys at most (one per network choice and environment); the newest are kept.
    const keys = [...stored(cairnHome).filter((item) => item !== key), key].slice(-8);
    writeFileAtomicSync(file, JSON.stringify(keys), { durable: false });
  } catch {
    // Probing again next time is the fallback.
  }
}
