import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { searchFilesTool } from "./search-files.js";
import { testContext } from "./test-context.js";
import type { ToolContext } from "./tool.js";

let base: string;
let ws: string;
let ctx: ToolContext;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-search-")));
  ws = path.join(base, "ws");
  await mkdir(ws);
  ctx = testContext(ws);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function tree(files: Record<string, string>) {
  for (const [name, content] of Object.entries(files)) {
    const target = path.join(ws, name);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

type Input = { path: string; regex: string; file_pattern?: string };

async function search(input: Input) {
  return await searchFilesTool.execute(searchFilesTool.parameters.parse(input), ctx);
}

async function found(input: Input): Promise<string> {
  const result = await search(input);
  expect(result.isError).toBeUndefined();
  return result.content as string;
}

/** The files a result lists, in order. */
function filesOf(content: string): string[] {
  return content.split("\n\n").slice(1).map((block) => block.split("\n")[0] ?? "");
}

describe("search_files results", () => {
  it("groups matches by file with line numbers, context lines and > on matching lines", async () => {
    await tree({
      "src/b.ts": ["import x from 'y';", "", "export function parseArgs() {", "  return parseArgs;", "}", "", "", "", "", "// parseArgs again", "end"].join("\n"),
      "src/a.ts": "const a = 1;\r\nparseArgs();\r\nconst b = 2;\r\n",
      "README.md": "nothing here\n",
    });
    expect(await found({ path: ".", regex: "parseArgs" })).toBe(
      [
        "Found 4 matches in 2 files.",
        "",
        "src/a.ts",
        "│----",
        "│1  | const a = 1;",
        "│2 >| parseArgs();",
        "│3  | const b = 2;",
        "│----",
        "",
        "src/b.ts",
        "│----",
        "│ 2  | ",
        "│ 3 >| export function parseArgs() {",
        "│ 4 >|   return parseArgs;",
        "│ 5  | }",
        "│----",
        "│ 9  | ",
        "│10 >| // parseArgs again",
        "│11  | end",
        "│----",
      ].join("\n"),
    );
  });

  it("takes Rust regex syntax, including (?i), and searches a single file when given one", async () => {
    await tree({ "a.txt": "Hello World\nhello there\nHELLO\n", "b.txt": "hello\n" });
    expect(await found({ path: "a.txt", regex: "(?i)^hello\\b" })).toContain("Found 3 matches in 1 file.");
    expect(await found({ path: ".", regex: "^hello$" })).toBe(["Found 1 match in 1 file.", "", "b.txt", "│----", "│1 >| hello", "│----"].join("\n"));
  });

  it("says so when nothing matches, without an error", async () => {
    await tree({ "src/a.ts": "x\n" });
    expect(await search({ path: "src", regex: "nothing", file_pattern: "*.ts" })).toEqual({
      content: "No matches for /nothing/ in src/ (files matching *.ts). Ignored files and dependency/build folders were not searched.",
    });
    expect((await found({ path: ".", regex: "nothing" })).startsWith("No matches for /nothing/ in the workspace.")).toBe(true);
  });

  it("cuts long lines to a window around the match", async () => {
    await tree({ "min.js": `${"a".repeat(5000)}NEEDLE${"b".repeat(5000)}\n${"c".repeat(2000)}\n` });
    const out = await found({ path: ".", regex: "NEEDLE" });
    const matchLine = out.split("\n").find((line) => line.includes(">|")) ?? "";
    expect(matchLine).toContain("NEEDLE");
    expect(matchLine.startsWith("│1 >| …a")).toBe(true);
    expect(matchLine.endsWith("b…")).toBe(true);
    expect(matchLine.length).toBeLessThan(520);
    const contextLine = out.split("\n").find((line) => line.startsWith("│2")) ?? "";
    expect(contextLine).toBe(`│2  | ${"c".repeat(500)}…`);
  });
});

describe("search_files scope", () => {
  it("honours .gitignore outside a git repo, searches dotfiles, and skips .git and dependency folders", async () => {
    await tree({
      ".gitignore": "*.gen.ts\ngenerated/\n",
      "src/app.ts": "TOKEN\n",
      "src/app.gen.ts": "TOKEN\n",
      "generated/api.ts": "TOKEN\n",
      ".github/workflows/ci.yml": "TOKEN\n",
      ".git/config": "TOKEN\n",
      "node_modules/dep/index.js": "TOKEN\n",
      "packages/a/node_modules/dep/index.js": "TOKEN\n",
      "dist/app.js": "TOKEN\n",
      "scripts/build": "TOKEN\n", // a file named like a heavy folder is still searched
    });
    expect(filesOf(await found({ path: ".", regex: "TOKEN" }))).toEqual([".github/workflows/ci.yml", "scripts/build", "src/app.ts"]);
  });

  it("searches a dependency folder when it is the path given", async () => {
    await tree({ "node_modules/dep/lib/index.js": "TOKEN\n" });
    expect(filesOf(await found({ path: "node_modules/dep", regex: "TOKEN" }))).toEqual(["node_modules/dep/lib/index.js"]);
  });

  it("limits files with file_pattern without un-ignoring git-ignored files", async () => {
    await tree({
      ".gitignore": "*.gen.ts\n",
      "a.ts": "TOKEN\n",
      "b.tsx": "TOKEN\n",
      "c.js": "TOKEN\n",
      "d.gen.ts": "TOKEN\n",
      "src/deep/e.ts": "TOKEN\n",
      "other/f.ts": "TOKEN\n",
    });
    expect(filesOf(await found({ path: ".", regex: "TOKEN", file_pattern: "*.ts" }))).toEqual(["a.ts", "other/f.ts", "src/deep/e.ts"]);
    expect(filesOf(await found({ path: ".", regex: "TOKEN", file_pattern: "*.{ts,tsx}" }))).toEqual([
      "a.ts",
      "b.tsx",
      "other/f.ts",
      "src/deep/e.ts",
    ]);
    expect(filesOf(await found({ path: ".", regex: "TOKEN", file_pattern: "*.tsx, *.js" }))).toEqual(["b.tsx", "c.js"]);
    expect(filesOf(await found({ path: ".", regex: "TOKEN", file_pattern: "src/**/*.ts" }))).toEqual(["src/deep/e.ts"]);
  });

  it("leaves out what .cairnignore and .clineignore block, even where a glob would override rg's own ignore files", async () => {
    await tree({
      ".cairnignore": "secrets/\n*.pem\n!public.pem\n",
      ".clineignore": "private.txt\n",
      "secrets/db.txt": "PASSWORD\n",
      "certs/server.pem": "PASSWORD\n",
      "certs/public.pem": "PASSWORD\n",
      "notes/private.txt": "PASSWORD\n",
      "notes/todo.txt": "PASSWORD\n",
    });
    expect(filesOf(await found({ path: ".", regex: "PASSWORD" }))).toEqual(["certs/public.pem", "notes/todo.txt"]);
    // A pattern with "/" is an rg glob, which rg lets override --ignore-file: the policy check still drops server.pem.
    expect(filesOf(await found({ path: ".", regex: "PASSWORD", file_pattern: "certs/*.pem" }))).toEqual(["certs/public.pem"]);
    expect(await search({ path: "secrets", regex: "PASSWORD" })).toEqual({
      content: "secrets/ is blocked by .cairnignore / .clineignore; it cannot be searched. Search another folder.",
      isError: true,
    });
  });
});

describe("search_files caps", () => {
  it("shows 300 matching lines and says how many there were in how many files", async () => {
    const files: Record<string, string> = {};
    for (let f = 0; f < 8; f += 1) {
      files[`f${f}.txt`] = Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n");
    }
    await tree(files);
    const out = await found({ path: ".", regex: "hit" });
    expect(out.split("\n")[0]).toBe(
      "[Showing 300 of 400 matches in 8 files. Narrow the search with a more specific regex, path or file_pattern.]",
    );
    expect(out.split("\n").filter((line) => line.includes(" >| "))).toHaveLength(300);
  });

  it("stops ripgrep well past the cap and reports the count as a lower bound", async () => {
    const body = Array.from({ length: 1000 }, (_, i) => `common word ${i}`).join("\n");
    await tree(Object.fromEntries(Array.from({ length: 20 }, (_, f) => [`d${f % 4}/f${f}.txt`, body])));
    const out = await found({ path: ".", regex: "common" });
    expect(out.split("\n")[0]).toMatch(
      /^\[Showing 300 of at least 3,000 matches in at least \d+ files\. Narrow the search with a more specific regex, path or file_pattern\.\]$/,
    );
    expect(out.split("\n").filter((line) => line.includes(" >| "))).toHaveLength(300);
  });
});

describe("search_files errors", () => {
  it("turns an invalid regex into one line saying what to change", async () => {
    await tree({ "a.ts": "x\n" });
    expect(await search({ path: ".", regex: "parse(" })).toEqual({
      content:
        "Invalid regex: unclosed group. The regex is Rust syntax: escape ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match them literally.",
      isError: true,
    });
    const lookAround = await search({ path: ".", regex: "(?<=foo)bar" });
    expect(lookAround.isError).toBe(true);
    expect(lookAround.content).toMatch(/^Invalid regex: look-around.*rewrite it without them\.$/);
    const newline = await search({ path: ".", regex: "a\\nb" });
    expect(newline.isError).toBe(true);
    expect(newline.content).toMatch(/^Invalid regex: it contains a line break/);
  });

  it("rejects a broken file_pattern and a missing path with what to do next", async () => {
    await tree({ "a.ts": "x\n" });
    const glob = await search({ path: ".", regex: "x", file_pattern: "*.{ts" });
    expect(glob.isError).toBe(true);
    expect(glob.content).toMatch(/^Invalid file_pattern: error parsing glob '\*\.\{ts'.*Give a glob such as \*\.ts/);
    expect(await search({ path: "nope", regex: "x" })).toEqual({
      content: "Path not found: nope. Use list_files on its parent folder to see what exists.",
      isError: true,
    });
  });

  it("stops ripgrep when the task is aborted", async () => {
    execFileSync("mkfifo", [path.join(ws, "pipe")]); // rg blocks opening a FIFO nobody writes to
    const controller = new AbortController();
    const running = searchFilesTool.execute({ path: "pipe", regex: "x" }, { ...ctx, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stopped by the user")), 100);
    await expect(running).rejects.toThrow("stopped by the user");
  });

  it("declares a read of its path and a one-line summary", () => {
    const input = searchFilesTool.parameters.parse({ path: "src", regex: "a|b", file_pattern: "*.ts" });
    expect(searchFilesTool.access?.(input)).toEqual([{ type: "read", path: "src" }]);
    expect(searchFilesTool.summarize?.(input)).toBe('search "a|b" in src (*.ts)');
    expect(searchFilesTool.parameters.safeParse({ path: "src", regex: "" }).success).toBe(false);
    expect(searchFilesTool.modes).toEqual(["act", "plan"]);
  });
});
