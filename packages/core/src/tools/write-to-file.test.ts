import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveWorkspacePath } from "../policy/workspace.js";
import { testContext } from "./test-context.js";
import type { ToolContext } from "./tool.js";
import { writeToFileTool } from "./write-to-file.js";

let ws: string;
let ctx: ToolContext;

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-write-")));
  ctx = testContext(ws);
});

afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

function write(filePath: string, content: string) {
  return writeToFileTool.execute(writeToFileTool.parameters.parse({ path: filePath, content }), ctx);
}

const onDisk = (p: string) => readFile(path.join(ws, p), "utf8");

describe("write_to_file", () => {
  it("creates the file and its missing parent folders, and echoes a small file back", async () => {
    const result = await write("src/deep/er/a.ts", "export const a = 1;\nexport const b = 2;\n");
    expect(result).toEqual({
      content:
        'Created src/deep/er/a.ts (2 lines).\n<final_file_content path="src/deep/er/a.ts">\nexport const a = 1;\nexport const b = 2;\n</final_file_content>',
    });
    expect(await onDisk("src/deep/er/a.ts")).toBe("export const a = 1;\nexport const b = 2;\n");
  });

  it("writes content byte for byte: CRLF, indentation, trailing spaces, no final newline, unicode", async () => {
    const content = "\t  indented  \r\n\r\nlast line — ✓ 日本 🎉   ";
    await write("weird.txt", content);
    expect(await readFile(path.join(ws, "weird.txt"))).toEqual(Buffer.from(content, "utf8"));
  });

  it("says a file was updated and how long it was before", async () => {
    await writeFile(path.join(ws, "a.ts"), "one\ntwo\nthree\n");
    const result = await write("a.ts", "uno\ndos\n");
    expect(result.isError).toBeUndefined();
    expect((result.content as string).split("\n")[0]).toBe("Updated a.ts (2 lines, was 3).");
    expect(await onDisk("a.ts")).toBe("uno\ndos\n");
  });

  it("reports when nothing changed", async () => {
    await writeFile(path.join(ws, "same.ts"), "x\n");
    expect(await write("same.ts", "x\n")).toEqual({ content: "No changes: same.ts already has this content (1 line)." });
  });

  it("gives only the line count for a large file", async () => {
    const content = Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n");
    const result = await write("big.txt", content);
    expect(result).toEqual({ content: "Created big.txt (500 lines)." });
    expect(await onDisk("big.txt")).toBe(content);
  });

  it("creates an empty file", async () => {
    expect(await write("empty.txt", "")).toEqual({ content: "Created empty.txt (0 lines)." });
    expect(await onDisk("empty.txt")).toBe("");
  });

  it("leaves no temporary files behind and keeps an existing file's permissions", async () => {
    await writeFile(path.join(ws, "run.sh"), "#!/bin/sh\necho old\n");
    await chmod(path.join(ws, "run.sh"), 0o755);
    await write("run.sh", "#!/bin/sh\necho new\n");
    expect((await stat(path.join(ws, "run.sh"))).mode & 0o777).toBe(0o755);
    expect(await readdir(ws)).toEqual(["run.sh"]);
  });

  it("writes through a symlink to its target, keeping the link", async () => {
    await writeFile(path.join(ws, "AGENTS.md"), "old\n");
    await symlink("AGENTS.md", path.join(ws, "CLAUDE.md"));
    await write("CLAUDE.md", "new\n");
    expect((await lstat(path.join(ws, "CLAUDE.md"))).isSymbolicLink()).toBe(true);
    expect(await onDisk("AGENTS.md")).toBe("new\n");
  });

  describe("code fences", () => {
    it("strips a fence the model wrapped around the whole content, and says so", async () => {
      const result = await write("src/a.ts", "```typescript\nconst a = 1;\nconst b = 2;\n```");
      expect(await onDisk("src/a.ts")).toBe("const a = 1;\nconst b = 2;\n");
      expect(result.content).toContain("Created src/a.ts (2 lines).");
      expect(result.content).toContain("Removed the ```typescript code fence wrapped around the content.");
    });

    it("strips a fence with CRLF line endings and trailing blank lines, keeping CRLF inside", async () => {
      await write("a.py", "```\r\nprint(1)\r\nprint(2)\r\n```\r\n\r\n");
      expect(await onDisk("a.py")).toBe("print(1)\r\nprint(2)\r\n");
    });

    it("keeps fences inside content that does not start with one", async () => {
      const content = 'const doc = `\n```js\nx\n```\n`;\n';
      await write("doc.ts", content);
      expect(await onDisk("doc.ts")).toBe(content);
    });

    it("keeps content that starts and ends with fences but holds several blocks", async () => {
      const content = "```js\na\n```\n\ntext\n\n```py\nb\n```\n";
      await write("notes.txt", content);
      expect(await onDisk("notes.txt")).toBe(content);
    });

    it("keeps content that opens a fence but never closes it", async () => {
      const content = "```ts\nconst a = 1;\n";
      await write("a.ts", content);
      expect(await onDisk("a.ts")).toBe(content);
    });

    it("never strips fences from markdown files", async () => {
      const content = "```bash\nnpm install\n```\n";
      for (const name of ["README.md", "page.mdx", "notes.markdown", "UPPER.MD"]) {
        await write(name, content);
        expect(await onDisk(name)).toBe(content);
      }
    });
  });

  describe("errors", () => {
    it("refuses to overwrite a folder", async () => {
      await mkdir(path.join(ws, "src"));
      const result = await write("src", "x");
      expect(result).toEqual({
        content: "src is a folder. Give the path of a file inside it, e.g. src/index.ts.",
        isError: true,
      });
    });

    it("refuses a path that ends with a slash", async () => {
      const result = await write("lib/", "x");
      expect(result.isError).toBe(true);
      expect(result.content).toContain("names a folder");
    });

    it("explains when part of the folder path is a file", async () => {
      await writeFile(path.join(ws, "config"), "");
      const result = await write("config/app.json", "{}");
      expect(result.isError).toBe(true);
      expect(result.content).toContain("Cannot create config/app.json: part of its folder path is an existing file");
      expect(await onDisk("config")).toBe("");
    });
  });

  it("declares an edit of its path, keeps content raw, and is offered in act mode only", () => {
    const input = writeToFileTool.parameters.parse({ path: "src/a.ts", content: "x" });
    expect(writeToFileTool.access?.(input)).toEqual([{ type: "edit", path: "src/a.ts" }]);
    expect(writeToFileTool.summarize?.(input)).toBe("write src/a.ts");
    expect(writeToFileTool.rawParameters).toEqual(["content"]);
    expect(writeToFileTool.kind).toBe("edit");
    expect(writeToFileTool.modes).toEqual(["act"]);
  });
});
