import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findProgram } from "./probe.js";

/**
 * The network commands get with network on: the outside world, but not this machine's loopback.
 *
 * Sharing the host's network namespace (what bubblewrap does without --unshare-net) lets a command
 * talk to every server on 127.0.0.1: the fleet's Redis (a job written there runs unsandboxed on a
 * worker), `cairn web`'s port, a database, an X server or session bus on an abstract socket. So
 * commands run in a network namespace of their own, connected to the outside by slirp4netns (a
 * user-mode TCP/IP stack: the namespace's packets become ordinary sockets of an unprivileged
 * process on the host) with --disable-host-loopback, which refuses connections to the host's
 * 127.0.0.0/8. Abstract unix sockets belong to a network namespace, so the host's are out of reach
 * too. Servers bound to the machine's other addresses stay reachable, as from the network.
 *
 * One namespace per Cairn process, made when the first command needs it, not one per command: it
 * costs ~15 ms to start, and commands of a task keep talking to each other over its loopback (a
 * dev server one command started in the background, a test another runs against it). Each command
 * enters it with nsenter before bubblewrap starts. A holder process keeps it, and it and
 * slirp4netns read a pipe from Cairn: they end when Cairn does, even by kill -9.
 */

/** The programs it takes, found on PATH, or what is missing (`missing`) and how to get it (`fix`). */
export type NetworkPrograms = ({ ok: true } & Programs) | { ok: false; missing: string; fix: string };
type Programs = { slirp4netns: string; nsenter: string; unshare: string };

/** slirp4netns, nsenter and unshare on PATH, and a TUN device slirp4netns can open. */
export function findNetworkPrograms(pathVariable: string | undefined): NetworkPrograms {
  const found: Record<string, string> = {};
  for (const name of ["slirp4netns", "nsenter", "unshare"]) {
    const file = findProgram(name, pathVariable);
    const fix = name === "slirp4netns" ? "apt install slirp4netns, dnf install slirp4netns" : "it comes with util-linux";
    if (file === undefined) return { ok: false, missing: `${name} is not on PATH`, fix };
    found[name] = file;
  }
  // slirp4netns opens the TUN device; a container may have none, or one only root can open.
  try {
    accessSync("/dev/net/tun", constants.R_OK | constants.W_OK);
  } catch {
    return { ok: false, missing: "/dev/net/tun cannot be opened", fix: "in a container, give it the device, e.g. docker run --device /dev/net/tun" };
  }
  return { ok: true, slirp4netns: found.slirp4netns!, nsenter: found.nsenter!, unshare: found.unshare! };
}

/** How to enter the namespace: `prefix` goes before bubblewrap; `resolvConf` replaces /etc/resolv.conf when the host's names only loopback servers. */
export type Entry = { ok: true; prefix: string[]; resolvConf?: string } | { ok: false; reason: string };

/**
 * Starts the holder and slirp4netns. Arguments: the state folder, unshare, slirp4netns, and, when
 * not root, the person's uid and gid: the namespace then lives in a user namespace of its own,
 * where this script maps them to themselves (what `unshare --map-current-user` does, which only
 * util-linux 2.38 and later have). The state folder gets `pid` (the holder), then `ready`, or
 * `failed` with one line; this script then says `ready` or `failed` on its stdout. fd 3 is Cairn's
 * pipe: its end is everyone's signal to stop; the holder (or, after a failure, this script) then
 * removes the folder. (bubblewrap cannot be the holder: it puts its process in a second user
 * namespace, from which the network namespace cannot be entered.)
 *
 * Nothing polls: the holder says its pid on a FIFO once it is inside the namespaces (before its uid
 * is mapped it could not write a file there), and slirp4netns writes "1" on another once the
 * namespace's interface is up. Each closes its end when it dies, so a failure ends the wait too.
 */
const SETUP = `d=$1; unshare=$2; slirp=$3; uid=$4; gid=$5; exec 3<&0
trap '' PIPE
# A failure is kept in the folder until Cairn reads it or ends: this shell waits on the lifeline
# first, since its exit would close the lifeline (Node closes a child's stdin when it exits).
fail() { printf '%s\\n' "$1" > "$d/failed.tmp"; mv "$d/failed.tmp" "$d/failed"; echo failed; cat <&3 >/dev/null; rm -rf "$d"; exit 1; }
mkfifo "$d/holder" "$d/slirp" 2>"$d/fifo.err" || fail "mkfifo failed: $(head -n 1 "$d/fifo.err")"
if [ -n "$uid" ]; then set -- --user --net; else set -- --net; fi
"$unshare" "$@" /bin/sh -c 'echo $$ >&4; exec 4>&-; cat >/dev/null; rm -rf "$0"' "$d" <&3 4>"$d/holder" >/dev/null 2>"$d/holder.err" &
read -r holder < "$d/holder" || fail "unshare failed: $(head -n 1 "$d/holder.err")"
if [ -n "$uid" ]; then
  { echo "$uid $uid 1" > "/proc/$holder/uid_map" && echo deny > "/proc/$holder/setgroups" && echo "$gid $gid 1" > "/proc/$holder/gid_map"; } 2>"$d/map.err" ||
    fail "the network namespace's user namespace could not be mapped: $(head -n 1 "$d/map.err")"
fi
echo "$holder" > "$d/pid.tmp" && mv "$d/pid.tmp" "$d/pid" || fail "the holder's pid could not be written"
"$slirp" --configure --mtu=65520 --disable-host-loopback --exit-fd=3 --ready-fd=4 "$holder" tap0 4>"$d/slirp" >/dev/null 2>"$d/slirp.err" &
read -r up < "$d/slirp"
[ "$up" = 1 ] || fail "slirp4netns failed: $(head -n 1 "$d/slirp.err")"
: > "$d/ready"
echo ready
# Stay their parent, so they are reaped when they end (a container's PID 1 may never reap).
wait`;

/** Waits (synchronously: a sandboxed process started before the setup said it is done) until SETUP wrote `ready` or `failed`. */
const WAIT = `i=0; while [ ! -e "$1/ready" ] && [ ! -e "$1/failed" ] && [ "$i" -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done`;

/** How long the setup may take before commands are told the network did not start. */
const setupTimeoutMs = 30_000;

/** slirp4netns's DNS forwarder, at this address in its default 10.0.2.0/24. */
const SLIRP_DNS = "10.0.2.3";

export class IsolatedNetwork {
  private dir: string | undefined;
  private entry: Entry | undefined;
  /** Cairn's end of the lifeline, held for as long as Cairn runs. */
  private lifeline: unknown;
  /** Settles once the setup has said `ready` or `failed` (or ended, or took too long): `ready` waits for it. */
  private said: Promise<void> | undefined;
  private saidStream: { ref(): void; unref(): void } | undefined;
  private settled = false;

  constructor(private readonly programs: Programs) {}

  /**
   * Starts making the namespace without waiting for it: a task that may run commands calls this
   * beside its model request, so its first command does not wait the ~15 ms it takes. Later calls
   * do nothing.
   */
  prepare(): void {
    if (this.entry === undefined) this.start();
  }

  /**
   * Waits, without holding this thread, until the namespace is made (or failed): a command awaits
   * this before `enter`, which then has nothing to wait for.
   */
  async ready(): Promise<void> {
    if (this.entry !== undefined) return;
    this.start();
    if (this.settled || this.said === undefined) return;
    this.saidStream?.ref(); // waited for now: keep the process up until the setup speaks
    try {
      await this.said;
    } finally {
      this.saidStream?.unref();
    }
  }

  /**
   * How commands enter the namespace. The first call makes it (waited for here) unless `prepare`
   * or `ready` started it already, so a task that runs no command costs nothing.
   */
  enter(): Entry {
    if (this.entry !== undefined) return this.entry;
    const dir = this.start();
    if (!this.settled && !existsSync(path.join(dir, "ready")) && !existsSync(path.join(dir, "failed"))) {
      spawnSync("/bin/sh", ["-c", WAIT, "sh", dir], { stdio: "ignore", timeout: 40_000 });
    }
    this.entry = this.open(dir);
    return this.entry;
  }

  private start(): string {
    if (this.dir !== undefined) return this.dir;
    const dir = stateFolder();
    this.dir = dir;
    const asUser = process.getuid?.() !== 0;
    const ids = asUser ? [String(process.getuid?.() ?? ""), String(process.getgid?.() ?? "")] : ["", ""];
    const child = spawn("/bin/sh", ["-c", SETUP, "sh", dir, this.programs.unshare, this.programs.slirp4netns, ...ids], {
      stdio: ["pipe", "pipe", "ignore"],
      detached: true,
    });
    child.on("error", () => undefined);
    child.stdin!.on("error", () => undefined);
    const said = child.stdout!;
    this.said = new Promise<void>((resolve) => {
      const settle = () => {
        this.settled = true;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(settle, setupTimeoutMs);
      timer.unref();
      said.once("data", settle);
      said.once("close", settle);
      child.once("error", settle);
    });
    // The pipes only say when the setup is done and keep it alive: neither keeps Cairn from exiting.
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    this.saidStream = said as unknown as { ref(): void; unref(): void };
    this.saidStream.unref();
    this.lifeline = child.stdin!;
    return dir;
  }

  private open(dir: string): Entry {
    const failed = readText(path.join(dir, "failed"));
    if (failed !== undefined) {
      // Said once here; nothing else reads the folder after a failure.
      rmSync(dir, { recursive: true, force: true });
      return { ok: false, reason: failed.trim() || "slirp4netns failed" };
    }
    if (!existsSync(path.join(dir, "ready"))) return { ok: false, reason: "slirp4netns did not start within 30 s" };
    const pid = Number(readText(path.join(dir, "pid"))?.trim());
    if (!Number.isInteger(pid) || pid <= 0) return { ok: false, reason: "the network namespace's holder did not say where it is" };
    // Open the namespaces now and enter them through Cairn's own descriptors: they stay valid
    // however long the holder lives, and a reused PID can never send a command elsewhere.
    const here = process.pid;
    try {
      const net = openSync(`/proc/${pid}/ns/net`, "r");
      if (readlinkSync(`/proc/${here}/fd/${net}`) === readlinkSync("/proc/self/ns/net")) {
        return { ok: false, reason: "the network namespace's holder is gone" };
      }
      const prefix = [this.programs.nsenter, `--net=/proc/${here}/fd/${net}`];
      if (process.getuid?.() !== 0) {
        const user = openSync(`/proc/${pid}/ns/user`, "r");
        prefix.push(`--user=/proc/${here}/fd/${user}`, "--preserve-credentials");
      }
      return { ok: true, prefix, ...resolvConf(dir) };
    } catch (error) {
      return { ok: false, reason: `the network namespace cannot be entered (${(error as Error).message})` };
    }
  }
}

/**
 * A host whose resolver is on its own loopback (systemd-resolved's 127.0.0.53, a local dnsmasq)
 * cannot be asked from the namespace: such a resolv.conf is replaced by one naming slirp4netns's
 * forwarder, which asks the host's resolver from outside.
 */
function resolvConf(dir: string): { resolvConf?: string } {
  const text = readText("/etc/resolv.conf");
  if (text === undefined) return {};
  const servers = [...text.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1]!);
  if (servers.length > 0 && !servers.every((s) => s.startsWith("127.") || s === "::1")) return {};
  const file = path.join(dir, "resolv.conf");
  const kept = text.split("\n").filter((line) => !/^\s*nameserver\s/.test(line));
  writeFileSync(file, [`nameserver ${SLIRP_DNS}`, ...kept].join("\n"));
  return { resolvConf: file };
}

const shared = new Map<string, IsolatedNetwork>();

/** The process's isolated network, started on first use. */
export function isolatedNetwork(programs: Programs): IsolatedNetwork {
  const key = JSON.stringify(programs);
  let network = shared.get(key);
  if (network === undefined) {
    network = new IsolatedNetwork(programs);
    shared.set(key, network);
  }
  return network;
}

/**
 * A private folder (0700) for the namespace's state, in the system's temp folder, whose /tmp
 * commands never see (theirs is private). Not under CAIRN_HOME: the holder removes it after Cairn
 * has gone, and nothing there should change under a reader then.
 */
function stateFolder(): string {
  return mkdtempSync(path.join(os.tmpdir(), "cairn-net-"));
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
