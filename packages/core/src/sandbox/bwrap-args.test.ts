import { describe, expect, it } from "vitest";
import { bwrapArgs, type BwrapPlan } from "./bwrap-args.js";

const plan = (over: Partial<BwrapPlan> = {}): BwrapPlan => ({
  workspace: "/home/p/ws",
  readOnlyWorkspace: false,
  writable: [],
  protectedPaths: [],
  hidden: [],
  masked: [],
  network: true,
  newSession: false,
  dropCapabilities: false,
  cwd: "/home/p/ws",
  ...over,
});

/** The index of `flag value [value]` in args, -1 when absent. */
function at(args: string[], ...seq: string[]): number {
  return args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
}

describe("bwrapArgs", () => {
  it("mounts / read-only, then a private /tmp, /dev and /proc, then the workspace writable, in new PID, IPC and UTS namespaces", () => {
    const args = bwrapArgs(plan());
    for (const flag of ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]) expect(args).toContain(flag);
    const root = at(args, "--ro-bind", "/", "/");
    expect(root).toBeGreaterThanOrEqual(0);
    expect(at(args, "--tmpfs", "/tmp")).toBeGreaterThan(root);
    expect(at(args, "--proc", "/proc")).toBeGreaterThan(root);
    expect(at(args, "--dev", "/dev")).toBeGreaterThan(root);
    expect(at(args, "--bind", "/home/p/ws", "/home/p/ws")).toBeGreaterThan(at(args, "--tmpfs", "/tmp"));
    expect(args.slice(-2)).toEqual(["--chdir", "/home/p/ws"]);
    expect(args).not.toContain("--unshare-net");
    expect(args).not.toContain("--new-session");
    expect(args).not.toContain("--cap-drop");
  });

  it("covers the key lists over the fresh /proc, loads the seccomp filter from its descriptor, and binds a replacement resolv.conf when given one", () => {
    const args = bwrapArgs(plan({ seccompFd: 9, resolvConf: "/tmp/cairn-net-x/resolv.conf" }));
    const proc = at(args, "--proc", "/proc");
    expect(at(args, "--ro-bind", "/dev/null", "/proc/keys")).toBeGreaterThan(proc);
    expect(at(args, "--seccomp", "9")).toBeGreaterThan(0);
    expect(at(args, "--ro-bind", "/tmp/cairn-net-x/resolv.conf", "/etc/resolv.conf")).toBeGreaterThan(at(args, "--ro-bind", "/", "/"));
    const plain = bwrapArgs(plan());
    expect(plain).not.toContain("--seccomp");
    expect(plain).not.toContain("/etc/resolv.conf");
  });

  it("binds the kernel's knobs (/proc/sys) read-only over the fresh /proc, and covers sysrq-trigger where it exists (bubblewrap covers irq and bus)", () => {
    const args = bwrapArgs(plan({ dropCapabilities: true }));
    expect(at(args, "--ro-bind", "/proc/sys", "/proc/sys")).toBeGreaterThan(at(args, "--proc", "/proc"));
    expect(at(args, "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger")).toBeGreaterThan(at(args, "--proc", "/proc"));
  });

  it("read-only binds the workspace read-only and leaves protected paths to it", () => {
    const args = bwrapArgs(plan({ readOnlyWorkspace: true, protectedPaths: [{ path: "/home/p/ws/.cairnignore", kind: "file" }] }));
    expect(at(args, "--ro-bind", "/home/p/ws", "/home/p/ws")).toBeGreaterThan(0);
    expect(at(args, "--bind", "/home/p/ws", "/home/p/ws")).toBe(-1);
    expect(args).not.toContain("/home/p/ws/.cairnignore");
  });

  it("binds protected paths read-only after the writable workspace", () => {
    const args = bwrapArgs(plan({ protectedPaths: [{ path: "/home/p/ws/.git/hooks", kind: "dir" }] }));
    expect(at(args, "--ro-bind", "/home/p/ws/.git/hooks", "/home/p/ws/.git/hooks")).toBeGreaterThan(at(args, "--bind", "/home/p/ws", "/home/p/ws"));
  });

  it("covers hidden and ignored folders with an empty read-only tmpfs and files with /dev/null, after the workspace", () => {
    const args = bwrapArgs(
      plan({
        hidden: [{ path: "/home/p/.ssh", kind: "dir" }, { path: "/home/p/.netrc", kind: "file" }],
        masked: [{ path: "/home/p/ws/.env", kind: "file" }, { path: "/home/p/ws/secrets", kind: "dir" }],
      }),
    );
    const ws = at(args, "--bind", "/home/p/ws", "/home/p/ws");
    expect(at(args, "--tmpfs", "/home/p/.ssh", "--remount-ro", "/home/p/.ssh")).toBeGreaterThan(ws);
    expect(at(args, "--ro-bind", "/dev/null", "/home/p/.netrc")).toBeGreaterThan(ws);
    expect(at(args, "--ro-bind", "/dev/null", "/home/p/ws/.env")).toBeGreaterThan(ws);
    expect(at(args, "--tmpfs", "/home/p/ws/secrets", "--remount-ro", "/home/p/ws/secrets")).toBeGreaterThan(ws);
  });

  it("never covers the workspace or a folder holding it (CAIRN_HOME around the workspace, a link to /)", () => {
    const args = bwrapArgs(
      plan({ hidden: [{ path: "/home/p", kind: "dir" }, { path: "/home/p/ws", kind: "dir" }], masked: [{ path: "/", kind: "dir" }] }),
    );
    expect(at(args, "--tmpfs", "/home/p")).toBe(-1);
    expect(at(args, "--tmpfs", "/home/p/ws")).toBe(-1);
    expect(at(args, "--tmpfs", "/", "--remount-ro")).toBe(-1);
  });

  it("cuts the network, starts a new session and drops capabilities when asked", () => {
    const args = bwrapArgs(plan({ network: false, newSession: true, dropCapabilities: true, writable: ["/home/p/.npm"] }));
    expect(args).toContain("--unshare-net");
    expect(args).toContain("--new-session");
    expect(at(args, "--cap-drop", "ALL")).toBeGreaterThanOrEqual(0);
    expect(at(args, "--bind", "/home/p/.npm", "/home/p/.npm")).toBeGreaterThan(at(args, "--ro-bind", "/", "/"));
  });
});

describe("programs that live under /tmp", () => {
  it("keep their top folder visible, read-only, over the private /tmp; the workspace and other paths are not added", async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import("node:fs");
    const { programFoldersInTmp } = await import("./command-sandbox.js");
    const top = mkdtempSync("/tmp/cairn-program-");
    try {
      mkdirSync(`${top}/node_modules/server`, { recursive: true });
      writeFileSync(`${top}/node_modules/server/index.js`, "");
      mkdirSync(`${top}/ws`);
      const folders = programFoldersInTmp(["/usr/bin/node", `${top}/node_modules/server/index.js`, `${top}/ws/sub`, "/tmp/does-not-exist/x", "-c", "echo hi"], `${top}/ws`);
      expect(folders).toEqual([top]);
      const args = bwrapArgs(plan({ workspace: `${top}/ws`, cwd: `${top}/ws`, visibleInTmp: folders }));
      // After the private /tmp, before the workspace: the workspace stays writable inside it.
      expect(at(args, "--ro-bind", top, top)).toBeGreaterThan(at(args, "--tmpfs", "/tmp"));
      expect(at(args, "--bind", `${top}/ws`, `${top}/ws`)).toBeGreaterThan(at(args, "--ro-bind", top, top));
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });
});
