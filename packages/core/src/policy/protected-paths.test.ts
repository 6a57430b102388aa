import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { protectedPath, protectedPaths } from "./protected-paths.js";

let base: string;
let ws: string;
let home: string;

beforeEach(() => {
  base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), "cairn-protected-")));
  ws = path.join(base, "ws");
  home = path.join(base, "home");
  fs.mkdirSync(path.join(ws, ".cairn"), { recursive: true });
  fs.mkdirSync(path.join(ws, "src"), { recursive: true });
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(ws, ".cairnignore"), ".env\n");
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

const hit = (target: string) => protectedPath(target, { cwd: ws, home })?.path;

describe("protectedPath", () => {
  it("protects the files Cairn reads to run code or set permissions, and git's folder at any depth", () => {
    expect(hit(".cairnignore")).toBe(".cairnignore");
    expect(hit(".clineignore")).toBe(".clineignore");
    expect(hit(".cairn/settings.json")).toBe(".cairn/settings.json");
    expect(hit(".mcp.json")).toBe(".mcp.json");
    expect(hit(".git/hooks/pre-commit")).toBe(".git/hooks/pre-commit");
    expect(hit("vendor/lib/.git/config")).toBe("vendor/lib/.git/config");
    expect(hit("./src/../.git/config")).toBe(".git/config");
    expect(hit(path.join(ws, ".GIT", "config"))).toBe(".GIT/config");
  });

  it("leaves ordinary files alone, including rules files and names that only look alike", () => {
    for (const file of ["src/a.ts", ".clinerules", "AGENTS.md", ".gitignore", ".gitmodules", "docs/.cairnignore.md", "package.json", ".github/workflows/ci.yml"]) {
      expect(hit(file), file).toBeUndefined();
    }
  });

  it("follows symlinks to what they name, also dangling ones and a link as the last part", () => {
    fs.symlinkSync(".cairn", path.join(ws, "cfg"));
    expect(hit("cfg/settings.json")).toBe(".cairn/settings.json");
    fs.symlinkSync(".cairnignore", path.join(ws, "notes.txt"));
    expect(hit("notes.txt")).toBe(".cairnignore");
    fs.symlinkSync(".git", path.join(ws, "g")); // .git does not exist yet
    expect(hit("g/hooks/pre-commit")).toBe(".git/hooks/pre-commit");
    fs.symlinkSync(path.join(home, "settings.json"), path.join(ws, "user.json"));
    expect(hit("user.json")).toBe(path.join(home, "settings.json"));
  });

  it("counts a hard link to a protected file as that file", () => {
    fs.linkSync(path.join(ws, ".cairnignore"), path.join(ws, "src", "list.txt"));
    expect(hit("src/list.txt")).toBe(path.join(ws, ".cairnignore"));
  });

  it("protects CAIRN_HOME's config and any .cairn or .git folder outside the workspace", () => {
    expect(hit(path.join(home, "settings.json"))).toBe(path.join(home, "settings.json"));
    expect(hit(path.join(home, "checkpoints", "x", "hooks", "post-commit"))).toBeDefined();
    expect(hit(path.join(home, "agents", "helper.md"))).toBe(path.join(home, "agents", "helper.md"));
    expect(hit(path.join(home, "workflows", "release.md"))).toBe(path.join(home, "workflows", "release.md"));
    expect(hit(path.join(home, "agents"))).toBe(path.join(home, "agents"));
    // The person's global rules go into every later task's prompt; a project's AGENTS.md stays editable (above).
    expect(hit(path.join(home, "AGENTS.md"))).toBe(path.join(home, "AGENTS.md"));
    // The person's global skills: every later task is offered them and runs their scripts.
    expect(hit(path.join(home, "skills", "pdf-forms", "scripts", "fill.py"))).toBe(path.join(home, "skills", "pdf-forms", "scripts", "fill.py"));
    expect(hit(path.join(home, "skills"))).toBe(path.join(home, "skills"));
    expect(hit(path.join(home, "agents-notes.txt"))).toBeUndefined();
    expect(hit(path.join(home, "tasks", "t", "scratch", "out.txt"))).toBeUndefined();
    expect(hit(path.join(home, "tasks", "t", "metadata.json"))).toBe(path.join(home, "tasks", "t", "metadata.json"));
    expect(hit(path.join(home, "tasks", "t", "conversation.jsonl"))).toBeDefined();
    expect(hit(path.join(home, "tasks", "index.json"))).toBeDefined();
    expect(hit(path.join(base, "other", ".git", "hooks", "pre-commit"))).toBe(path.join(base, "other", ".git", "hooks", "pre-commit"));
    expect(hit(path.join(os.homedir(), ".cairn", "settings.json"))).toBeDefined();
  });

  it("lists the paths a sandbox should keep read-only", () => {
    expect(protectedPaths(ws, home)).toEqual(
      expect.arrayContaining([path.join(ws, ".git"), path.join(ws, ".cairn"), path.join(ws, ".mcp.json"), path.join(ws, ".cairnignore"), path.join(home, "trust.json"), path.join(home, "AGENTS.md")]),
    );
  });
});
