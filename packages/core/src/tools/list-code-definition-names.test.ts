import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listCodeDefinitionNamesTool, maxOutlineFileBytes, maxOutlineFiles } from "./list-code-definition-names.js";
import { testContext } from "./test-context.js";
import type { ToolContext } from "./tool.js";

let base: string;
let ws: string;
let ctx: ToolContext;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-outline-")));
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
    if (name.endsWith("/")) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

async function outline(p: string) {
  return await listCodeDefinitionNamesTool.execute(listCodeDefinitionNamesTool.parameters.parse({ path: p }), ctx);
}

async function text(p: string): Promise<string> {
  const result = await outline(p);
  expect(result.isError).toBeUndefined();
  return result.content as string;
}

const server = `import { EventEmitter } from "node:events";

export class Server extends EventEmitter {
  start(port: number): Promise<void> {
    return Promise.resolve();
  }
}

export function createServer(): Server {
  return new Server();
}
`;

describe("list_code_definition_names", () => {
  it("outlines every source file directly in a folder, whatever its language, sorted by name", async () => {
    await tree({
      "src/server.ts": server,
      "src/app.py": "class App:\n    def run(self) -> None:\n        pass\n",
      "src/main.go": "package main\n\nfunc main() {}\n",
      "src/README.md": "# not code\n",
      "src/data.json": "{}\n",
      "src/nested/deep.ts": "export function hidden() {}\n",
    });
    expect(await text("src")).toBe(
      [
        "src/app.py",
        "  1│ class App",
        "  2│   def run(self) -> None",
        "",
        "src/main.go",
        "  3│ func main()",
        "",
        "src/server.ts",
        "  3│ export class Server extends EventEmitter",
        "  4│   start(port: number): Promise<void>",
        "  9│ export function createServer(): Server",
      ].join("\n"),
    );
  });

  it("outlines a single file", async () => {
    await tree({ "src/server.ts": server });
    expect(await text("src/server.ts")).toBe(
      [
        "src/server.ts",
        "  3│ export class Server extends EventEmitter",
        "  4│   start(port: number): Promise<void>",
        "  9│ export function createServer(): Server",
      ].join("\n"),
    );
  });

  it("names the source files that have no definitions", async () => {
    await tree({ "src/index.ts": 'export * from "./server.js";\n', "src/server.ts": server, "src/types.ts": "" });
    const output = await text("src");
    expect(output).toContain("src/server.ts\n  3│ export class Server");
    expect(output.endsWith("[No definitions found in: src/index.ts, src/types.ts]")).toBe(true);
    expect(await text("src/index.ts")).toBe("No definitions found in src/index.ts.");
    await rm(path.join(ws, "src", "server.ts"));
    expect(await text("src")).toBe("No definitions found in the 2 source files of src/: src/index.ts, src/types.ts");
  });

  it("leaves out files blocked by .cairnignore and says how many", async () => {
    await tree({
      ".cairnignore": "src/secret.ts\n",
      "src/server.ts": server,
      "src/secret.ts": "export function apiKey() { return 'k'; }\n",
    });
    const output = await text("src");
    expect(output).not.toContain("secret");
    expect(output).not.toContain("apiKey");
    expect(output).toContain("src/server.ts");
    expect(output).toContain("[1 file blocked by .cairnignore left out.]");
  });

  it("says so when every source file in the folder is blocked", async () => {
    await tree({ ".clineignore": "private/\n", "private/a.ts": "export function a() {}\n" });
    expect(await text("private")).toBe("No source files to outline in private/: its only source file is blocked by .clineignore.");
  });

  it("still outlines a file with syntax errors, with a note", async () => {
    await tree({ "bad.py": "class Ok:\n    def fine(self): ...\n\ndef broken(:\n    pass\n\ndef after():\n    pass\n" });
    const output = await text("bad.py");
    expect(output.split("\n")).toEqual([
      "bad.py",
      "  1│ class Ok",
      "  2│   def fine(self)",
      "  4│ def broken(",
      "  7│ def after()",
      "  [has syntax errors: some definitions may be missing]",
    ]);
  });

  it(`outlines at most ${maxOutlineFiles} files and names the ones it left out`, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < maxOutlineFiles + 3; i += 1) {
      const name = `m${String(i).padStart(2, "0")}`;
      files[`lib/${name}.js`] = `export function ${name}() {}\n`;
    }
    await tree(files);
    const output = await text("lib");
    expect(output).toContain("lib/m00.js\n  1│ export function m00()");
    expect(output).toContain(`lib/m${maxOutlineFiles - 1}.js`);
    expect(output).not.toContain(`lib/m${maxOutlineFiles}.js`);
    expect(output.endsWith(
      `[Outlined the first ${maxOutlineFiles} of ${maxOutlineFiles + 3} source files in lib/ (alphabetically); not outlined: m50.js, m51.js, m52.js. Give one file's path to outline it.]`,
    )).toBe(true);
  });

  it("skips a file over the size limit with a note, and outlines the rest", async () => {
    const big = `export function first() {}\n${"// filler line to make the file large\n".repeat(Math.ceil(maxOutlineFileBytes / 38) + 10)}`;
    await tree({ "src/big.ts": big, "src/small.ts": "export function small() {}\n" });
    const output = await text("src");
    expect(output).toContain(
      "src/big.ts\n  [skipped: 1.0 MB is over the 1 MB limit; read parts of it with read_file instead]",
    );
    expect(output).not.toContain("first()");
    expect(output).toContain("src/small.ts\n  1│ export function small()");
  });

  it("explains a folder with no source files and names its subfolders", async () => {
    await tree({ "docs/guide.md": "# Guide\n", "pkg/src/": "", "pkg/test/": "", "pkg/package.json": "{}" });
    expect(await text("pkg")).toBe(
      [
        "No source files directly in pkg/. This tool outlines TypeScript/TSX, JavaScript (.js .jsx .mjs .cjs), Python, Go, Rust, Java, C, C++, C#, Ruby and PHP files in the folder itself, not in its subfolders.",
        "Its subfolders: src/, test/. Outline one of them, or use list_files to find source folders.",
      ].join("\n"),
    );
    expect((await text("docs")).split("\n")[1]).toBe("Use list_files to find the folders that hold source code.");
  });

  it("does not follow symlinks in a folder", async () => {
    await tree({ "src/real.ts": "export function real() {}\n" });
    await writeFile(path.join(base, "outside.ts"), "export function outside() {}\n");
    await symlink(path.join(base, "outside.ts"), path.join(ws, "src", "link.ts"));
    const output = await text("src");
    expect(output).toContain("real()");
    expect(output).not.toContain("outside");
  });

  it("fails with guidance for a missing path or a file it cannot outline", async () => {
    await tree({ "notes.md": "# notes\n" });
    const missing = await outline("nope");
    expect(missing).toEqual({ isError: true, content: "Path not found: nope. Use list_files on its parent folder to see what exists." });
    const markdown = await outline("notes.md");
    expect(markdown.isError).toBe(true);
    expect(markdown.content).toMatch(/^notes\.md is not a source file this tool can outline \(it reads \.ts .*\)\. Use read_file to read it\.$/);
  });

  it("describes itself for policy and people", () => {
    const input = { path: "src" };
    expect(listCodeDefinitionNamesTool.access?.(input)).toEqual([{ type: "read", path: "src" }]);
    expect(listCodeDefinitionNamesTool.summarize?.(input)).toBe("outline src");
    expect(listCodeDefinitionNamesTool.kind).toBe("read");
    expect(listCodeDefinitionNamesTool.modes).toEqual(["act", "plan"]);
    expect(listCodeDefinitionNamesTool.description).toMatch(/Example:\n<list_code_definition_names>\n<path>src\/server<\/path>\n<\/list_code_definition_names>$/);
  });
});
