import { describe, expect, it } from "vitest";
import { bwrapArgs, type BwrapPlan } from "./bwrap-args.js";
import { pinnedFolders } from "./pinned-folders.js";

const file = (path: string) => ({ path, kind: "file" as const });
const dir = (path: string) => ({ path, kind: "dir" as const });

describe("pinnedFolders", () => {
  it("lists every folder between the workspace and each mask once, shallowest first; none for a mask at the root or outside", () => {
    const folders = pinnedFolders(
      [file("/ws/apps/web/.env"), file("/ws/apps/api/.env"), dir("/ws/config/secrets"), file("/ws/.env"), file("/home/p/.netrc"), file("/ws/apps/web/key.pem")],
      ["/ws"],
    );
    expect(folders).toEqual(["/ws/apps", "/ws/config", "/ws/apps/web", "/ws/apps/api"]);
  });

  it("pins inside settings' writable folders too, and nothing without a writable root", () => {
    expect(pinnedFolders([file("/home/p/.npm/a/secret")], ["/home/p/.npm", "/ws"])).toEqual(["/home/p/.npm/a"]);
    expect(pinnedFolders([file("/ws/a/secret")], [])).toEqual([]);
  });
});

describe("bwrapArgs pins the folders holding masks", () => {
  const plan: BwrapPlan = {
    workspace: "/ws",
    readOnlyWorkspace: false,
    writable: [],
    protectedPaths: [dir("/ws/.cairn")],
    hidden: [],
    masked: [file("/ws/config/secret.json"), file("/ws/.cairn/private/x")],
    network: true,
    newSession: false,
    dropCapabilities: false,
    cwd: "/ws",
  };
  const at = (args: string[], ...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));

  it("writable, after the workspace and before the protected paths (which stay read-only) and the masks", () => {
    const args = bwrapArgs(plan);
    const pin = at(args, "--bind", "/ws/config", "/ws/config");
    expect(pin).toBeGreaterThan(at(args, "--bind", "/ws", "/ws"));
    expect(pin).toBeLessThan(at(args, "--ro-bind", "/dev/null", "/ws/config/secret.json"));
    expect(at(args, "--bind", "/ws/.cairn", "/ws/.cairn")).toBeLessThan(at(args, "--ro-bind", "/ws/.cairn", "/ws/.cairn"));
  });

  it("not at all in a read-only workspace, where nothing can be moved", () => {
    const args = bwrapArgs({ ...plan, readOnlyWorkspace: true });
    expect(at(args, "--bind", "/ws/config", "/ws/config")).toBe(-1);
  });
});
