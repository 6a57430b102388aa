import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { replaceInFileTool } from "./replace-in-file.js";
import { testContext } from "./test-context.js";
import type { ToolContext } from "./tool.js";

let ws: string;
let ctx: ToolContext;

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-replace-")));
  ctx = testContext(ws);
});

afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

async function edit(filePath: string, diff: string): Promise<{ text: string; isError: boolean }> {
  const result = await replaceInFileTool.execute(replaceInFileTool.parameters.parse({ path: filePath, diff }), ctx);
  return { text: typeof result.content === "string" ? result.content : "", isError: result.isError === true };
}

const onDisk = (p: string) => readFile(path.join(ws, p), "utf8");
const put = async (p: string, content: string | Buffer) => {
  await mkdir(path.dirname(path.join(ws, p)), { recursive: true });
  await writeFile(path.join(ws, p), content);
};
const block = (search: string, replace: string) => `------- SEARCH\n${search}\n=======\n${replace}\n+++++++ REPLACE`;

describe("replace_in_file", () => {
  it("edits the file and answers with a summary; blocks that matched exactly are not echoed back as a diff", async () => {
    await put("src/a.ts", "import { a } from './a';\n\nexport function f() {\n  return a();\n}\n\nexport const x = 1;\n");
    const result = await edit(
      "src/a.ts",
      [block("export const x = 1;", "export const x = 2;\nexport const y = 3;"), block("  return a();", "  return a() + 1;")].join("\n"),
    );
    expect(result.isError).toBe(false);
    expect(await onDisk("src/a.ts")).toBe(
      "import { a } from './a';\n\nexport function f() {\n  return a() + 1;\n}\n\nexport const x = 2;\nexport const y = 3;\n",
    );
    expect(result.text).toBe("Edited src/a.ts: 2 blocks, lines 4 and 7-8 (+3 −2).");
  });

  it("says which blocks matched only leniently, and shows what is on disk now as a diff", async () => {
    await put("a.py", "import os\n\ndef f():\n    return 1\n");
    const result = await edit("a.py", block("return 1", "return 2"));
    expect(await onDisk("a.py")).toBe("import os\n\ndef f():\n    return 2\n");
    expect(result.text).toBe(
      [
        "Edited a.py: 1 block, line 4 (+1 −1).",
        "Block 1 matched only when ignoring leading/trailing whitespace; its REPLACE lines were re-indented to the file's indentation.",
        "",
        "The changes (unified diff):",
        "@@ -2,3 +2,3 @@",
        " ",
        " def f():",
        "-    return 1",
        "+    return 2",
      ].join("\n"),
    );
  });

  it("shows a line that two blocks edited once", async () => {
    await put("a.ts", "let a = b + c;\nnext();\n");
    const result = await edit("a.ts", [block("= b", "= B"), block("c;", "C;")].join("\n"));
    expect(result.text).toBe(
      [
        "Edited a.ts: 2 blocks, line 1 (+1 −1).",
        "Block 1 matched part of a line rather than whole lines.",
        "Block 2 matched part of a line rather than whole lines.",
        "",
        "The changes (unified diff):",
        "@@ -1,2 +1,2 @@",
        "-let a = b + c;",
        "+let a = B + C;",
        " next();",
      ].join("\n"),
    );
  });

  it("says when a SEARCH matched only without its padding blank lines", async () => {
    await put("a.txt", "x\nfoo\nbar\n");
    const result = await edit("a.txt", block("foo\n", "FOO\n"));
    expect(await onDisk("a.txt")).toBe("x\nFOO\nbar\n");
    expect(result.text).toContain("Block 1 matched only when dropping the blank lines at the start/end of its SEARCH.");
  });

  it("bounds the diff it shows for a huge edit", async () => {
    // Indented in the file, not in SEARCH: a lenient match, whose diff is shown.
    const lines = Array.from({ length: 3_000 }, (_, i) => `value ${i}`);
    await put("big.txt", `${lines.map((l) => `  ${l}`).join("\n")}\n`);
    const result = await edit("big.txt", block(lines.join("\n"), lines.map((l) => `${l}!`).join("\n")));
    expect(result.text.split("\n")[0]).toBe("Edited big.txt: 1 block, lines 1-3000 (+3000 −3000).");
    expect(result.text.length).toBeLessThan(10_000);
    expect(result.text).toMatch(/the diff is cut here: \d+ more changed lines are not shown; read_file/);
    expect((await onDisk("big.txt")).split("\n")[2999]).toBe("  value 2999!");
  });

  it("reports no change when REPLACE equals what SEARCH matched", async () => {
    await put("a.txt", "same\n");
    const result = await edit("a.txt", block("same", "same"));
    expect(result).toEqual({ isError: false, text: "No changes: in every block REPLACE equals the text SEARCH matched, so a.txt was left as it was." });
  });

  it("keeps the file's permissions, leaves no temporary file, and writes through a symlink", async () => {
    await put("run.sh", "#!/bin/sh\necho old\n");
    await chmod(path.join(ws, "run.sh"), 0o755);
    await symlink("run.sh", path.join(ws, "link.sh"));
    await edit("link.sh", block("echo old", "echo new"));
    expect(await onDisk("run.sh")).toBe("#!/bin/sh\necho new\n");
    expect((await lstat(path.join(ws, "link.sh"))).isSymbolicLink()).toBe(true);
    expect((await stat(path.join(ws, "run.sh"))).mode & 0o777).toBe(0o755);
    expect((await readdir(ws)).sort()).toEqual(["link.sh", "run.sh"]);
  });

  it("keeps the bytes of a CRLF file with a BOM everywhere it did not change", async () => {
    const original = Buffer.from("\uFEFFa\r\nb\r\nc", "utf8");
    await put("w.txt", original);
    await edit("w.txt", block("b", "B\nB2"));
    expect(await readFile(path.join(ws, "w.txt"))).toEqual(Buffer.from("\uFEFFa\r\nB\r\nB2\r\nc", "utf8"));
  });

  describe("errors", () => {
    it("a missing file: suggests write_to_file", async () => {
      const result = await edit("src/nope.ts", block("a", "b"));
      expect(result.isError).toBe(true);
      expect(result.text).toContain("File not found: src/nope.ts. replace_in_file only edits existing files; to create it, use write_to_file");
      await expect(stat(path.join(ws, "src/nope.ts"))).rejects.toThrow();
    });

    it("a folder", async () => {
      await mkdir(path.join(ws, "src"));
      expect(await edit("src", block("a", "b"))).toEqual({ isError: true, text: "src is a folder, not a file. Give the path of a file inside it." });
    });

    it("a binary file is refused and left alone", async () => {
      const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x61]);
      await put("img.png", bytes);
      const result = await edit("img.png", block("a", "b"));
      expect(result).toEqual({ isError: true, text: "img.png is a binary file (7 bytes); replace_in_file edits text files only." });
      expect(await readFile(path.join(ws, "img.png"))).toEqual(bytes);
    });

    it("a file that is not UTF-8 is refused rather than re-encoded", async () => {
      const latin1 = Buffer.from("caf\xe9\nb\n", "latin1");
      await put("old.txt", latin1);
      const result = await edit("old.txt", block("b", "c"));
      expect(result.isError).toBe(true);
      expect(result.text).toContain("old.txt is not valid UTF-8 text");
      expect(await readFile(path.join(ws, "old.txt"))).toEqual(latin1);
    });

    it("a failed block names the file, quotes the SEARCH and shows the file, changing nothing", async () => {
      await put("a.ts", "const a = 1;\nconst b = 2;\n");
      const result = await edit("a.ts", [block("const a = 1;", "const a = 10;"), block("const c = 3;", "const c = 30;")].join("\n"));
      expect(result.isError).toBe(true);
      expect(result.text).toContain("replace_in_file did not change a.ts: block 2 of 2 failed.");
      expect(result.text).toContain("------- SEARCH\nconst c = 3;\n=======");
      expect(result.text).toContain("1 | const a = 1;\n2 | const b = 2;");
      expect(await onDisk("a.ts")).toBe("const a = 1;\nconst b = 2;\n");
    });
  });

  it("declares an edit of its path, keeps the diff raw, and is offered in act mode only", () => {
    const input = replaceInFileTool.parameters.parse({ path: "src/a.ts", diff: "x" });
    expect(replaceInFileTool.access?.(input)).toEqual([{ type: "edit", path: "src/a.ts" }]);
    expect(replaceInFileTool.summarize?.(input)).toBe("edit src/a.ts");
    expect(replaceInFileTool.rawParameters).toEqual(["diff"]);
    expect(replaceInFileTool.kind).toBe("edit");
    expect(replaceInFileTool.modes).toEqual(["act"]);
    expect(replaceInFileTool.description).toMatch(/Example:\n<replace_in_file>\n<path>[^<]+<\/path>\n<diff>\n------- SEARCH\n[\s\S]+<\/diff>\n<\/replace_in_file>$/);
  });
});
