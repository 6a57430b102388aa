import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveWorkspacePath } from "../policy/workspace.js";
import { readFileTool } from "./read-file.js";
import { testContext } from "./test-context.js";
import type { ToolContext } from "./tool.js";

let ws: string;
let ctx: ToolContext;

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-read-")));
  ctx = testContext(ws);
});

afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

function read(input: { path: string; start_line?: number; end_line?: number; line_numbers?: boolean }) {
  return readFileTool.execute(readFileTool.parameters.parse(input), ctx);
}

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join("");

describe("read_file", () => {
  it("returns a small file byte for byte: CRLF, indentation, trailing spaces, no final newline", async () => {
    const text = "  first line  \r\n\tsecond\r\n\r\nlast without newline   ";
    await writeFile(path.join(ws, "a.txt"), text);
    const result = await read({ path: "a.txt" });
    expect(result).toEqual({ content: text });
  });

  it("keeps multi-byte characters intact", async () => {
    const text = "héllo wörld — ✓ 日本語 🎉\n";
    await writeFile(path.join(ws, "u.md"), text);
    expect((await read({ path: "u.md" })).content).toBe(text);
  });

  it("keeps a UTF-8 byte-order mark, so the text is what is on disk", async () => {
    await writeFile(path.join(ws, "bom.cs"), "\uFEFFusing System;\r\n");
    expect((await read({ path: "bom.cs" })).content).toBe("\uFEFFusing System;\r\n");
  });

  it("reads files in subfolders and by absolute path", async () => {
    await mkdir(path.join(ws, "src"));
    await writeFile(path.join(ws, "src", "main.ts"), "export {};\n");
    expect((await read({ path: "src/main.ts" })).content).toBe("export {};\n");
    expect((await read({ path: path.join(ws, "src", "main.ts") })).content).toBe("export {};\n");
  });

  it("returns a 1-based inclusive range with a note saying where it is", async () => {
    await writeFile(path.join(ws, "five.txt"), numbered(1, 5));
    const result = await read({ path: "five.txt", start_line: 2, end_line: 3 });
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe("line 2\nline 3\n[Showing lines 2-3 of 5.]");
  });

  it("reads a single line and the last line without newline", async () => {
    await writeFile(path.join(ws, "f.txt"), "one\ntwo\nthree");
    expect((await read({ path: "f.txt", start_line: 2, end_line: 2 })).content).toBe("two\n[Showing lines 2-2 of 3.]");
    expect((await read({ path: "f.txt", start_line: 3 })).content).toBe("three\n[Showing lines 3-3 of 3.]");
  });

  it("clamps an end_line past the end of the file", async () => {
    await writeFile(path.join(ws, "five.txt"), numbered(1, 5));
    expect((await read({ path: "five.txt", start_line: 4, end_line: 99 })).content).toBe(
      "line 4\nline 5\n[Showing lines 4-5 of 5.]",
    );
    expect(await read({ path: "five.txt", start_line: 1, end_line: 99 })).toEqual({ content: numbered(1, 5) });
  });

  it("rejects a start_line past the end, saying how many lines there are", async () => {
    await writeFile(path.join(ws, "five.txt"), numbered(1, 5));
    const result = await read({ path: "five.txt", start_line: 6 });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("start_line 6 is past the end of five.txt, which has 5 lines");
  });

  it("rejects end_line before start_line", async () => {
    await writeFile(path.join(ws, "five.txt"), numbered(1, 5));
    const result = await read({ path: "five.txt", start_line: 4, end_line: 2 });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("end_line (2) is before start_line (4)");
  });

  it("rejects line numbers below 1 at validation", () => {
    expect(readFileTool.parameters.safeParse({ path: "a", start_line: 0 }).success).toBe(false);
    expect(readFileTool.parameters.safeParse({ path: "a", end_line: 1.5 }).success).toBe(false);
  });

  it("shows the first 2000 lines of a long file with a note on how to read more", async () => {
    await writeFile(path.join(ws, "big.log"), numbered(1, 58211));
    const result = await read({ path: "big.log" });
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe(
      `${numbered(1, 2000)}[Showing lines 1-2000 of 58211. Use start_line/end_line to read more.]`,
    );
  });

  it("reads later windows of a long file, capped at 2000 lines", async () => {
    await writeFile(path.join(ws, "big.log"), numbered(1, 58211));
    expect((await read({ path: "big.log", start_line: 57000 })).content).toBe(
      `${numbered(57000, 58211)}[Showing lines 57000-58211 of 58211.]`,
    );
    expect((await read({ path: "big.log", start_line: 10000, end_line: 20000 })).content).toBe(
      `${numbered(10000, 11999)}[Showing lines 10000-11999 of 58211. Use start_line/end_line to read more.]`,
    );
  });

  it("caps a window at 256 KB, ending on a whole line", async () => {
    const line = `${"x".repeat(1023)}\n`; // 1 KB per line
    await writeFile(path.join(ws, "wide.txt"), line.repeat(1000));
    const result = await read({ path: "wide.txt" });
    expect(result.content).toBe(`${line.repeat(256)}[Showing lines 1-256 of 1000. Use start_line/end_line to read more.]`);
  });

  it("cuts a single line that is longer than the cap, and says so", async () => {
    await writeFile(path.join(ws, "min.js"), `${"é".repeat(200_000)}\nsecond\n`); // 400 KB line
    const result = await read({ path: "min.js" });
    expect(result.isError).toBeUndefined();
    const content = result.content as string;
    expect(content.startsWith("é".repeat(131_072))).toBe(true);
    expect(content).not.toContain("\uFFFD"); // never splits a character
    expect(content).toContain("[Line 1 is too long to show whole; showing its first 262144 bytes.");
  });

  it("returns exactly the same bytes across read-buffer boundaries", async () => {
    // Lines of varying length so line ends land everywhere relative to 64 KB chunks.
    const lines: string[] = [];
    for (let i = 0; i < 3000; i += 1) lines.push(`${i}:${"abcdefghij".repeat(i % 97)}\r\n`);
    await writeFile(path.join(ws, "mixed.txt"), lines.join(""));
    for (const [from, to] of [
      [1, 40],
      [500, 900],
      [1234, 1300],
      [2990, 3000],
    ] as const) {
      const result = await read({ path: "mixed.txt", start_line: from, end_line: to });
      expect(result.content).toBe(`${lines.slice(from - 1, to).join("")}[Showing lines ${from}-${to} of 3000.]`);
    }
  });

  it("counts and windows a file of several MB exactly, whatever line straddles a buffer boundary, with or without a final newline", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 12_000; i += 1) lines.push(`${i}:${"klmnopqrst".repeat((i * 7) % 101)}\n`);
    // The lines that straddle each MiB (and so each power-of-two buffer size up to it).
    const straddling: number[] = [];
    let offset = 0;
    lines.forEach((line, i) => {
      const next = offset + Buffer.byteLength(line);
      if (Math.floor(offset / 2 ** 20) !== Math.floor((next - 1) / 2 ** 20)) straddling.push(i + 1);
      offset = next;
    });
    expect(straddling.length).toBeGreaterThanOrEqual(4);
    for (const ending of ["\n", ""]) {
      const text = lines.join("").slice(0, ending === "" ? -1 : undefined);
      await writeFile(path.join(ws, "several.txt"), text);
      for (const line of straddling) {
        for (const [from, to] of [[line, line + 2], [line - 1, line], [line + 1, line + 1]] as const) {
          const result = await read({ path: "several.txt", start_line: from, end_line: to });
          expect(result.content).toBe(`${lines.slice(from - 1, to).join("")}[Showing lines ${from}-${to} of 12000.]`);
        }
      }
      const tail = (await read({ path: "several.txt", start_line: 11_999 })).content as string;
      // Without a final newline the note still starts on a line of its own.
      expect(tail).toBe(`${lines[11_998]}${lines[11_999]}[Showing lines 11999-12000 of 12000.]`);
      const head = (await read({ path: "several.txt", line_numbers: true })).content as string;
      expect(head).toMatch(/^ *1 \| 0:\n *2 \| 1:(klmnopqrst){7}\n/);
      expect(head).toMatch(/\[Showing lines 1-\d+ of 12000\. Use start_line\/end_line to read more\.\]$/);
    }
  });

  it("says an empty file is empty", async () => {
    await writeFile(path.join(ws, "empty.txt"), "");
    expect(await read({ path: "empty.txt" })).toEqual({ content: "[empty.txt is empty.]" });
    expect((await read({ path: "empty.txt", start_line: 3 })).isError).toBe(true);
  });

  it("refuses binary files, giving their size", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
    await writeFile(path.join(ws, "logo.bin"), bytes);
    const result = await read({ path: "logo.bin" });
    expect(result).toEqual({ content: "logo.bin is a binary file (12 bytes); it cannot be read as text.", isError: true });
  });

  it("points to list_files when the file does not exist", async () => {
    const result = await read({ path: "src/missing.ts" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("File not found: src/missing.ts");
    expect(result.content).toContain("list_files");
  });

  it("points to list_files when given a directory", async () => {
    await mkdir(path.join(ws, "src"));
    const result = await read({ path: "src" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("src is a directory");
    expect(result.content).toContain("list_files");
  });

  it("declares a read of its path and a one-line summary", () => {
    const input = readFileTool.parameters.parse({ path: "src/a.ts", start_line: 5 });
    expect(readFileTool.access?.(input)).toEqual([{ type: "read", path: "src/a.ts" }]);
    expect(readFileTool.summarize?.(input)).toBe("read src/a.ts lines 5-end");
    expect(readFileTool.summarize?.({ path: "src/a.ts" })).toBe("read src/a.ts");
    expect(readFileTool.kind).toBe("read");
    expect(readFileTool.modes).toEqual(["act", "plan"]);
  });
});
