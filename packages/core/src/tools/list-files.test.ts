import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveWorkspacePath } from "../policy/workspace.js";
import { listFilesTool } from "./list-files.js";
import { testContext } from "./test-context.js";
import type { ToolContext } from "./tool.js";

let base: string;
let ws: string;
let ctx: ToolContext;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-list-")));
  ws = path.join(base, "ws");
  await mkdir(ws);
  ctx = testContext(ws);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Creates files (and their folders) under the workspace; a name ending in "/" is an empty folder. */
async function tree(files: Record<string, string>) {
  for (const [name, content] of Object.entries(files)) {
    const target = path.join(ws, name);
    if (name.endsWith("/")) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

async function list(input: { path: string; recursive?: boolean }) {
  const result = await listFilesTool.execute(listFilesTool.parameters.parse(input), ctx);
  return result;
}

async function lines(input: { path: string; recursive?: boolean }) {
  const result = await list(input);
  expect(result.isError).toBeUndefined();
  return (result.content as string).split("\n");
}

describe("list_files (flat)", () => {
  it("lists everything directly in the folder, folders with a slash, sorted case-insensitively", async () => {
    await tree({
      "README.md": "",
      "package.json": "",
      ".env": "SECRET=1",
      ".gitignore": ".env\nnode_modules/\n",
      "src/index.ts": "",
      "node_modules/dep/index.js": "",
      "Zeta.txt": "",
      "empty/": "",
    });
    expect(await lines({ path: "." })).toEqual([
      ".env",
      ".gitignore",
      "empty/",
      "node_modules/",
      "package.json",
      "README.md",
      "src/",
      "Zeta.txt",
    ]);
  });

  it("shows paths relative to the workspace when listing a subfolder", async () => {
    await tree({ "packages/core/src/a.ts": "", "packages/core/package.json": "" });
    expect(await lines({ path: "packages/core" })).toEqual(["packages/core/package.json", "packages/core/src/"]);
    expect(await lines({ path: "packages/core/" })).toEqual(["packages/core/package.json", "packages/core/src/"]);
  });

  it("caps a huge folder and counts what it left out", async () => {
    await tree(Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, ""])));
    const out = await lines({ path: "." });
    expect(out).toHaveLength(501);
    expect(out[0]).toBe("f000.txt");
    expect(out[499]).toBe("f499.txt");
    expect(out[500]).toBe("[... 100 more not shown; use search_files or a command to find specific files]");
  });
});

describe("list_files (recursive)", () => {
  it("walks the tree, hides .gitignore'd entries, and shows heavy folders without expanding them", async () => {
    await tree({
      ".gitignore": "*.log\n/secret/\n",
      "src/index.ts": "",
      "src/util/strings.ts": "",
      "src/debug.log": "",
      "secret/key.pem": "",
      ".git/HEAD": "ref: refs/heads/main\n",
      "dist/index.js": "",
      "target/debug/app": "",
      "packages/a/node_modules/x/index.js": "",
      "packages/a/index.ts": "",
    });
    expect(await lines({ path: ".", recursive: true })).toEqual([
      ".git/",
      ".gitignore",
      "dist/",
      "packages/",
      "packages/a/",
      "packages/a/index.ts",
      "packages/a/node_modules/",
      "src/",
      "src/index.ts",
      "src/util/",
      "src/util/strings.ts",
      "target/",
    ]);
  });

  it("applies nested .gitignore files relative to their folder, deeper ones winning", async () => {
    await tree({
      ".gitignore": "*.gen.ts\n",
      "app/.gitignore": "!keep.gen.ts\ntmp/\n",
      "app/keep.gen.ts": "",
      "app/drop.gen.ts": "",
      "app/tmp/x.ts": "",
      "app/sub/tmp/y.ts": "",
      "app/sub/z.ts": "",
      "other/tmp/visible.ts": "",
      "other/a.gen.ts": "",
    });
    expect(await lines({ path: ".", recursive: true })).toEqual([
      ".gitignore",
      "app/",
      "app/.gitignore",
      "app/keep.gen.ts",
      "app/sub/",
      "app/sub/z.ts",
      "other/",
      "other/tmp/",
      "other/tmp/visible.ts",
    ]);
  });

  it("honours the root .gitignore when listing a subfolder", async () => {
    await tree({ ".gitignore": "*.log\nbuild-output/\n", "pkg/src/a.ts": "", "pkg/src/a.log": "", "pkg/build-output/x": "" });
    expect(await lines({ path: "pkg", recursive: true })).toEqual(["pkg/src/", "pkg/src/a.ts"]);
  });

  it("lists a folder the model asked for even when .gitignore hides it", async () => {
    await tree({ ".gitignore": "generated/\n*.log\n", "generated/api.ts": "", "generated/sub/b.ts": "" });
    expect(await lines({ path: "generated", recursive: true })).toEqual([
      "generated/api.ts",
      "generated/sub/",
      "generated/sub/b.ts",
    ]);
  });

  it("says when a folder is empty or everything in it is ignored", async () => {
    await tree({ "empty/": "", "ignored/.gitignore": "*\n", "ignored/a.txt": "" });
    expect(await list({ path: "empty", recursive: true })).toEqual({ content: "empty/ is empty." });
    expect(await list({ path: "empty" })).toEqual({ content: "empty/ is empty." });
    expect(await list({ path: "ignored", recursive: true })).toEqual({
      content: "No files to show in ignored/: all 2 entries are ignored by .gitignore.",
    });
  });

  it("goes breadth-first so the cap keeps the top levels, and counts what it left out", async () => {
    const files: Record<string, string> = {};
    for (const dir of ["a", "b", "c", "d", "e"]) {
      for (let i = 0; i < 100; i += 1) files[`${dir}/f${String(i).padStart(3, "0")}.ts`] = "";
    }
    files["z-top.txt"] = "";
    files["a/deep/deeper/deepest.ts"] = "";
    await tree(files);
    const out = await lines({ path: ".", recursive: true });
    expect(out).toHaveLength(201);
    // Every top-level entry survives the cap.
    for (const top of ["a/", "b/", "c/", "d/", "e/", "z-top.txt"]) expect(out).toContain(top);
    expect(out).not.toContain("a/deep/deeper/deepest.ts");
    // 6 top-level + 5 * 100 files + a/deep/ + a/deep/deeper/ + deepest.ts = 509 entries, 200 shown.
    expect(out[200]).toBe("[... 309 more not shown; list a subfolder to see them]");
    // Shown in path order, a folder's contents right after it.
    expect(out.slice(0, 3)).toEqual(["a/", "a/deep/", "a/f000.ts"]);
  });

  it("stops counting what it left out in a huge tree and says 'at least'", async () => {
    for (let d = 0; d < 12; d += 1) {
      const dir = path.join(ws, `d${String(d).padStart(2, "0")}`);
      await mkdir(dir);
      await Promise.all(Array.from({ length: 1000 }, (_, i) => writeFile(path.join(dir, `f${i}`), "")));
    }
    const out = await lines({ path: ".", recursive: true });
    expect(out).toHaveLength(201);
    expect(out[200]).toMatch(/^\[\.\.\. at least 1\d{4} more not shown; list a subfolder to see them\]$/);
  });

  it("shows symlinks with their target and never expands symlinked folders", async () => {
    const outside = path.join(base, "outside");
    await mkdir(outside);
    await writeFile(path.join(outside, "secret.txt"), "secret");
    await tree({ "src/a.ts": "", "AGENTS.md": "" });
    await symlink(outside, path.join(ws, "vendor"));
    await symlink(path.join(ws, "src"), path.join(ws, "alias"));
    await symlink("AGENTS.md", path.join(ws, "CLAUDE.md"));
    await symlink(ws, path.join(ws, "src", "loop"));
    await symlink(path.join(base, "missing"), path.join(ws, "dangling"));
    const out = await lines({ path: ".", recursive: true });
    expect(out).toEqual([
      "AGENTS.md",
      "alias/ -> src/",
      "CLAUDE.md -> AGENTS.md",
      `dangling -> ${path.join(base, "missing")}`,
      "src/",
      "src/a.ts",
      "src/loop/ -> ./",
      `vendor/ -> ${outside}/`,
    ]);
    expect(out.join("\n")).not.toContain("secret.txt");
  });

  it("lists a symlinked folder when asked for it directly", async () => {
    await tree({ "src/a.ts": "" });
    await symlink(path.join(ws, "src"), path.join(ws, "alias"));
    expect(await lines({ path: "alias" })).toEqual(["alias/a.ts"]);
  });
});

describe("list_files with .cairnignore", () => {
  it("marks blocked entries with 🔒 in a recursive listing and never shows what is inside them", async () => {
    await tree({
      ".cairnignore": "secrets/\n*.env\n!example.env\n",
      "secrets/key.pem": "",
      "secrets/deep/token.txt": "",
      "config/prod.env": "",
      "config/example.env": "",
      "src/a.ts": "",
    });
    expect(await lines({ path: ".", recursive: true })).toEqual([
      ".cairnignore",
      "config/",
      "config/example.env",
      "🔒 config/prod.env",
      "🔒 secrets/",
      "src/",
      "src/a.ts",
      "[🔒 = blocked by .cairnignore: the name is shown, its contents cannot be read]",
    ]);
  });

  it("marks blocked entries in a flat listing, and refuses to list a blocked folder", async () => {
    await tree({ ".clineignore": "private/\n", "private/notes.md": "", "public/readme.md": "", "b.txt": "" });
    expect(await lines({ path: "." })).toEqual([
      ".clineignore",
      "b.txt",
      "🔒 private/",
      "public/",
      "[🔒 = blocked by .clineignore: the name is shown, its contents cannot be read]",
    ]);
    expect(await list({ path: "private", recursive: true })).toEqual({
      content: "private/ is blocked by .clineignore; its contents cannot be listed. List another folder.",
      isError: true,
    });
  });

  it("adds no note when nothing shown is blocked", async () => {
    await tree({ ".cairnignore": "*.secret\n", "src/a.ts": "" });
    expect(await lines({ path: "src", recursive: true })).toEqual(["src/a.ts"]);
  });
});

describe("list_files errors and metadata", () => {
  it("points to the parent folder when the folder does not exist", async () => {
    const result = await list({ path: "nope" });
    expect(result).toEqual({ content: "Folder not found: nope/. List its parent folder to see what exists.", isError: true });
  });

  it("points to read_file when given a file", async () => {
    await tree({ "src/a.ts": "" });
    const result = await list({ path: "src/a.ts", recursive: true });
    expect(result).toEqual({ content: "src/a.ts is a file, not a folder. Use read_file to read it.", isError: true });
  });

  it("declares a read of its path and a one-line summary", () => {
    const input = listFilesTool.parameters.parse({ path: "src", recursive: true });
    expect(listFilesTool.access?.(input)).toEqual([{ type: "read", path: "src" }]);
    expect(listFilesTool.summarize?.(input)).toBe("list src (recursive)");
    expect(listFilesTool.parameters.safeParse({ path: "src", recursive: "true" }).success).toBe(false);
  });
});
