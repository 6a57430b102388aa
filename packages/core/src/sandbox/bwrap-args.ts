import { existsSync } from "node:fs";
import path from "node:path";
import { pinnedFolders } from "./pinned-folders.js";

/** A path to cover inside the sandbox: a folder gets an empty read-only tmpfs, a file /dev/null. */
export type Mask = { path: string; kind: "dir" | "file" };

/** Everything one bubblewrap invocation needs, decided beforehand (real, existing paths). */
export type BwrapPlan = {
  workspace: string;
  readOnlyWorkspace: boolean;
  /** Folders writable besides the workspace and /tmp (settings' writablePaths). */
  writable: string[];
  /**
   * Folders of this one process (an MCP server's state folder, in CAIRN_HOME) writable even where
   * they lie in a hidden folder: bound between the hidden folder's empty tmpfs and its remount
   * read-only, so the process sees only them of it. Also in `writable` (for when it is not hidden).
   */
  ownWritable?: string[];
  /** Folders under /tmp the program itself lives in (an MCP server run from a checkout in /tmp): kept visible, read-only, over the private /tmp. */
  visibleInTmp?: string[];
  /** Inside the workspace but read-only even in workspace-write (ignore files, .cairn, .git/hooks). */
  protectedPaths: Mask[];
  /** CAIRN_HOME and credential folders. */
  hidden: Mask[];
  /** Paths matched by the workspace's ignore files. */
  masked: Mask[];
  network: boolean;
  /** A file to bind over /etc/resolv.conf (the isolated network's DNS forwarder, when the host's resolver is on its loopback). */
  resolvConf?: string;
  /** The descriptor bubblewrap reads the seccomp filter from (seccomp-filter.ts). */
  seccompFd?: number;
  /** setsid inside: for processes that share the person's terminal (MCP servers); commands of the terminal already run in a session of their own. */
  newSession: boolean;
  /** As root, bubblewrap keeps every capability unless told otherwise; CAP_SYS_ADMIN could remount / writable. */
  dropCapabilities: boolean;
  cwd: string;
};

/** Where the kernel has keys at all (a kernel without them has no such files to cover). */
const KEY_LISTS = ["/proc/keys", "/proc/key-users"].filter((file) => existsSync(file));

/** bubblewrap's arguments, up to and excluding the command. Later mounts cover earlier ones, so the order is the policy. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"];
  if (!plan.network) args.push("--unshare-net");
  if (plan.newSession) args.push("--new-session");
  if (plan.dropCapabilities) args.push("--cap-drop", "ALL");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  // A fresh /proc is writable where the kernel lets the caller write: as root (CI, containers,
  // fleet workers) even with every capability dropped, /proc/sys/kernel/core_pattern runs a
  // program of the command's choosing on the host at the next crash, and sysrq-trigger can reboot.
  // The kernel's knobs stay readable. (bubblewrap covers /proc/irq and /proc/bus itself, and each
  // mount costs a command ~0.2 ms.)
  args.push("--ro-bind", "/proc/sys", "/proc/sys");
  args.push("--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger");
  // The keys this user can see, by name, as container runtimes hide them (reading one is the
  // seccomp filter's to refuse).
  for (const file of KEY_LISTS) args.push("--ro-bind", "/dev/null", file);
  if (plan.resolvConf !== undefined) args.push("--ro-bind", plan.resolvConf, "/etc/resolv.conf");
  if (plan.seccompFd !== undefined) args.push("--seccomp", String(plan.seccompFd));
  args.push("--tmpfs", "/tmp");
  for (const dir of plan.visibleInTmp ?? []) args.push("--ro-bind", dir, dir);
  for (const dir of plan.writable) args.push("--bind", dir, dir);
  args.push(plan.readOnlyWorkspace ? "--ro-bind" : "--bind", plan.workspace, plan.workspace);
  // Before the protected paths, so a pinned folder never makes one of them writable again.
  const writableRoots = plan.readOnlyWorkspace ? plan.writable : [...plan.writable, plan.workspace];
  for (const dir of pinnedFolders([...plan.hidden, ...plan.masked], writableRoots)) args.push("--bind", dir, dir);
  for (const p of plan.protectedPaths) {
    if (!plan.readOnlyWorkspace) args.push("--ro-bind", p.path, p.path);
  }
  // Covering a folder that holds the workspace would hide the workspace itself.
  for (const mask of [...plan.hidden, ...plan.masked]) {
    if (contains(mask.path, plan.workspace) || mask.path === "/") continue;
    if (mask.kind === "dir") {
      args.push("--tmpfs", mask.path);
      for (const dir of plan.ownWritable ?? []) if (contains(mask.path, dir) && dir !== mask.path) args.push("--bind", dir, dir);
      args.push("--remount-ro", mask.path);
    }
    else args.push("--ro-bind", "/dev/null", mask.path);
  }
  args.push("--chdir", plan.cwd);
  return args;
}

/** Whether `inner` is `outer` or lies inside it. */
export function contains(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === "" || (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative));
}
