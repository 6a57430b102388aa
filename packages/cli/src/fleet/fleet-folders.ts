import { createHmac, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";

/**
 * The worker's --dir: mirrors of every repository it has served and the scratch checkout of every
 * job it runs. A job's commands see the file system read-only, this folder included (it holds their
 * workspace, so the sandbox cannot cover it), and they must not read the other repositories kept
 * here, nor another running job's checkout.
 *
 * So `mirrors/` and `work/` can be entered but not listed (mode 300: the worker creates and removes
 * by name; a command, without capabilities in the sandbox and on a read-only mount, can neither
 * list them nor change their mode), and no name in them can be guessed: a mirror is named by an
 * HMAC of its repository under the fleet's secret (which commands cannot read), a checkout by its
 * job and 16 random bytes. A job learns its own checkout and its own repository's mirror, nothing else.
 */
const enterOnly = 0o300;

/** A mirror named by a plain hash of its URL, as workers before keyed names made them (or one left half-cloned). */
const oldMirrorName = /^[0-9a-f]{16}\.git(\.\d+\.tmp)?$/;

/** A scratch checkout: `<job id>-<pid>`, then 32 hex digits since names cannot be guessed. */
const checkoutName = /^[A-Za-z0-9]{10}-(\d+)(-[0-9a-f]{32})?$/;

/**
 * Makes the folders (or tightens ones an older worker made), and removes what a job could still
 * find by name: mirrors named the old, guessable way, and checkouts left by a worker that died (its
 * process is gone; a live one's, on the same --dir, stay). Only those: --dir is the person's choice
 * of folder, and what else is in it is not the worker's to remove.
 */
export function prepareFleetDir(cacheDir: string): void {
  for (const name of ["mirrors", "work"]) {
    const dir = path.join(cacheDir, name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    for (const entry of readdirSync(dir)) {
      const leftover = name === "mirrors" ? oldMirrorName.test(entry) : isGone(checkoutName.exec(entry)?.[1]);
      if (leftover) rmSync(path.join(dir, entry), { recursive: true, force: true });
    }
    chmodSync(dir, enterOnly);
  }
}

/** Whether the process `pid` (a decimal string) is gone; false for no pid, this process, or one alive (another worker). */
function isGone(pid: string | undefined): boolean {
  if (pid === undefined || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Where the mirror of `repo` is kept: a name only the fleet's secret gives. */
export function mirrorDir(cacheDir: string, secret: string, repo: string): string {
  const name = createHmac("sha256", secret).update(`cairn fleet mirror\0${repo}`).digest("hex").slice(0, 32);
  return path.join(cacheDir, "mirrors", `${name}.git`);
}

/** A job's scratch checkout: its id and this process's (a person looking for it finds it), and a part no one can guess. */
export function scratchDir(cacheDir: string, jobId: string): string {
  return path.join(cacheDir, "work", `${jobId}-${process.pid}-${randomBytes(16).toString("hex")}`);
}
