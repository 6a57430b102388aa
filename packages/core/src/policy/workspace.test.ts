import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { displayPath, isInside, realPath, resolveWorkspacePath } from "./workspace.js";

let base: string;
let ws: string;
let outside: string;

beforeEach(() => {
  base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), "cairn-ws-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  fs.mkdirSync(path.join(ws, "src", "deep"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(ws, "src", "a.ts"), "a\n");
  fs.writeFileSync(path.join(outside, "secret.txt"), "secret\n");
});

afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

const external = (p: string) => resolveWorkspacePath(ws, p).external;

describe("resolveWorkspacePath", () => {
  it("keeps ordinary relative paths inside, existing or not", () => {
    expect(resolveWorkspacePath(ws, "src/a.ts")).toEqual({ absolute: path.join(ws, "src", "a.ts"), real: path.join(ws, "src", "a.ts"), external: false });
    expect(resolveWorkspacePath(ws, "src/new/dir/file.ts")).toEqual({
      absolute: path.join(ws, "src", "new", "dir", "file.ts"),
      real: path.join(ws, "src", "new", "dir", "file.ts"),
      external: false,
    });
  });

  it("treats the empty path and '.' as the workspace root", () => {
    expect(resolveWorkspacePath(ws, "")).toEqual({ absolute: ws, real: ws, external: false });
    expect(resolveWorkspacePath(ws, ".")).toEqual({ absolute: ws, real: ws, external: false });
    expect(resolveWorkspacePath(ws, "./")).toEqual({ absolute: ws, real: ws, external: false });
  });

  it("flags .. escapes", () => {
    expect(external("..")).toBe(true);
    expect(external("../..")).toBe(true);
    expect(external("../outside/secret.txt")).toBe(true);
    expect(external("a/../../x")).toBe(true);
    expect(external("src/../../ws-other")).toBe(true);
    expect(resolveWorkspacePath(ws, "a/../../x").absolute).toBe(path.join(base, "x"));
  });

  it("allows .. that stays inside", () => {
    expect(external("src/deep/../a.ts")).toBe(false);
    expect(external("src/../src/a.ts")).toBe(false);
  });

  it("judges absolute paths by where they point", () => {
    expect(resolveWorkspacePath(ws, path.join(ws, "src", "a.ts"))).toEqual({
      absolute: path.join(ws, "src", "a.ts"),
      real: path.join(ws, "src", "a.ts"),
      external: false,
    });
    expect(external(path.join(outside, "secret.txt"))).toBe(true);
    expect(external("/")).toBe(true);
    expect(external(os.tmpdir())).toBe(true);
  });

  it("expands ~ to the home directory", () => {
    expect(resolveWorkspacePath(ws, "~").absolute).toBe(os.homedir());
    expect(resolveWorkspacePath(ws, "~/.ssh/id_rsa")).toEqual({
      absolute: path.join(os.homedir(), ".ssh", "id_rsa"),
      real: realPath(path.join(os.homedir(), ".ssh", "id_rsa")),
      external: true,
    });
    // Only a leading "~/" is the home directory; "~foo" is an ordinary name.
    expect(resolveWorkspacePath(ws, "~foo")).toEqual({ absolute: path.join(ws, "~foo"), real: path.join(ws, "~foo"), external: false });
  });

  it("does not confuse a sibling whose name starts with the workspace name", () => {
    const evil = path.join(base, "ws-evil");
    fs.mkdirSync(evil);
    expect(external(evil)).toBe(true);
    expect(external(path.join(evil, "x.ts"))).toBe(true);
    expect(external("../ws-evil/x.ts")).toBe(true);
    expect(external(`${ws}-evil`)).toBe(true);
  });

  it("accepts names that merely start with dots", () => {
    expect(external("..foo")).toBe(false);
    expect(external("...")).toBe(false);
    expect(external(".git/config")).toBe(false);
  });

  it("flags a symlinked file pointing outside", () => {
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(ws, "innocent.txt"));
    expect(resolveWorkspacePath(ws, "innocent.txt")).toEqual({ absolute: path.join(ws, "innocent.txt"), real: path.join(outside, "secret.txt"), external: true });
  });

  it("flags a symlinked folder pointing outside, and new files below it", () => {
    fs.symlinkSync(outside, path.join(ws, "src", "vendor"));
    expect(external("src/vendor")).toBe(true);
    expect(external("src/vendor/secret.txt")).toBe(true);
    expect(external("src/vendor/new/file.ts")).toBe(true);
  });

  it("flags a dangling symlink whose target would be created outside", () => {
    fs.symlinkSync(path.join(outside, "not-yet.txt"), path.join(ws, "dangling.txt"));
    fs.symlinkSync(path.join(outside, "no-dir"), path.join(ws, "dangling-dir"));
    expect(external("dangling.txt")).toBe(true);
    expect(external("dangling-dir/new.ts")).toBe(true);
  });

  it("follows symlink chains to their end", () => {
    // ws/first -> ws/second -> outside
    fs.symlinkSync(outside, path.join(ws, "second"));
    fs.symlinkSync(path.join(ws, "second"), path.join(ws, "first"));
    expect(external("first/secret.txt")).toBe(true);
    // relative link chain that ends inside
    fs.symlinkSync("src", path.join(ws, "hop2"));
    fs.symlinkSync("hop2", path.join(ws, "hop1"));
    expect(external("hop1/a.ts")).toBe(false);
    expect(external("hop1/brand-new.ts")).toBe(false);
  });

  it("treats a symlink loop as external (it cannot be resolved)", () => {
    fs.symlinkSync(path.join(ws, "loop-b"), path.join(ws, "loop-a"));
    fs.symlinkSync(path.join(ws, "loop-a"), path.join(ws, "loop-b"));
    expect(external("loop-a/file.txt")).toBe(true);
    expect(resolveWorkspacePath(ws, "loop-a/file.txt").real).toBeUndefined();
  });

  it("keeps symlinks that point inside the workspace inside", () => {
    fs.symlinkSync(path.join(ws, "src"), path.join(ws, "alias"));
    fs.symlinkSync("../src/a.ts", path.join(ws, "src", "deep", "a-link.ts"));
    expect(resolveWorkspacePath(ws, "alias/a.ts")).toEqual({ absolute: path.join(ws, "alias", "a.ts"), real: path.join(ws, "src", "a.ts"), external: false });
    expect(external("alias/new.ts")).toBe(false);
    expect(external("src/deep/a-link.ts")).toBe(false);
  });

  it("flags a relative symlink that climbs out", () => {
    fs.symlinkSync("../../outside", path.join(ws, "src", "up"));
    expect(external("src/up/secret.txt")).toBe(true);
  });

  it("accepts the workspace reached through a symlinked path", () => {
    const alias = path.join(base, "ws-alias");
    fs.symlinkSync(ws, alias);
    expect(external(path.join(alias, "src", "a.ts"))).toBe(false);
    expect(external(path.join(alias, "src", "new.ts"))).toBe(false);
    // and when the root itself is given through the alias
    expect(resolveWorkspacePath(alias, "src/a.ts").external).toBe(false);
    expect(resolveWorkspacePath(alias, "../outside/secret.txt").external).toBe(true);
  });

  it("does not let a symlink to the parent pass as inside", () => {
    fs.symlinkSync(base, path.join(ws, "parent"));
    expect(external("parent/outside/secret.txt")).toBe(true);
    expect(external("parent/ws/src/a.ts")).toBe(false);
  });
});

describe("realPath", () => {
  it("follows the kernel's links: /proc/<pid>/root, /proc/self/fd and /dev/fd name the files they lead to", () => {
    const file = path.join(ws, "src", "a.ts");
    expect(realPath(`/proc/${process.pid}/root${file}`)).toBe(file);
    expect(realPath(`/proc/self/root${ws}/src/new.ts`)).toBe(path.join(ws, "src", "new.ts"));
    const fd = fs.openSync(file, "r");
    try {
      expect(realPath(`/proc/self/fd/${fd}`)).toBe(file);
      expect(realPath(`/dev/fd/${fd}`)).toBe(file);
    } finally {
      fs.closeSync(fd);
    }
  });

  it("follows relative links shipped in a folder, and a dangling one to where a write would create it", () => {
    fs.symlinkSync("../a.ts", path.join(ws, "src", "deep", "cfg.ts"));
    fs.symlinkSync("../../outside/not-yet.txt", path.join(ws, "src", "later.txt"));
    expect(realPath(path.join(ws, "src", "deep", "cfg.ts"))).toBe(path.join(ws, "src", "a.ts"));
    expect(realPath(path.join(ws, "src", "later.txt"))).toBe(path.join(outside, "not-yet.txt"));
  });

  it("is undefined for a loop of links", () => {
    fs.symlinkSync(path.join(ws, "loop-b"), path.join(ws, "loop-a"));
    fs.symlinkSync(path.join(ws, "loop-a"), path.join(ws, "loop-b"));
    expect(realPath(path.join(ws, "loop-a"))).toBeUndefined();
  });
});

describe("isInside", () => {
  it("holds for the root and below it, not for siblings that share a prefix or the parent", () => {
    expect(isInside(ws, ws)).toBe(true);
    expect(isInside(ws, path.join(ws, "src", "a.ts"))).toBe(true);
    expect(isInside(ws, `${ws}-evil/x`)).toBe(false);
    expect(isInside(ws, base)).toBe(false);
  });
});

describe("displayPath", () => {
  it("shows paths inside the workspace relative with forward slashes", () => {
    expect(displayPath(ws, path.join(ws, "src", "a.ts"))).toBe("src/a.ts");
    expect(displayPath(ws, ws)).toBe(".");
  });

  it("shows paths outside the workspace as absolute", () => {
    expect(displayPath(ws, path.join(outside, "secret.txt"))).toBe(path.join(outside, "secret.txt"));
    expect(displayPath(ws, `${ws}-evil`)).toBe(`${ws}-evil`);
  });
});
