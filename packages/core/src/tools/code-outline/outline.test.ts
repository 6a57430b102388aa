import { describe, expect, it } from "vitest";
import { languages } from "./languages.js";
import { outlineFile, outlineSource } from "./outline.js";
import { maxSignatureChars } from "./signature.js";

const { typescript, python } = languages;

describe("outlineSource", () => {
  it("still lists what it can from a file with syntax errors, and says it had errors", async () => {
    const broken = [
      "export class Good {",
      "  ok(): void {",
      "    if (x > ) {",
      "      call(1, 2;",
      "    }",
      "  }",
      "",
      "  second(): number {",
      "    return 1;",
      "  }",
      "}",
      "",
      "let = 5;",
      "",
      "export function alsoGood(x: number): number {",
      "  return x;",
      "}",
    ].join("\n");
    const outline = await outlineSource(broken, typescript);
    expect(outline.hasErrors).toBe(true);
    expect(outline.entries.map((e) => [e.line, e.depth, e.signature])).toEqual([
      [1, 0, "export class Good"],
      [2, 1, "ok(): void"],
      [8, 1, "second(): number"],
      [15, 0, "export function alsoGood(x: number): number"],
    ]);
  });

  it("reports no errors for clean code", async () => {
    expect((await outlineSource("export const a = 1;\n", typescript)).hasErrors).toBe(false);
  });

  it("counts lines the same with CRLF line endings and a byte-order mark, and shows no \\r", async () => {
    const text = "\uFEFFimport x from 'y';\r\n\r\nexport class A {\r\n  run(): void {}\r\n}\r\n";
    const { entries } = await outlineSource(text, typescript);
    expect(entries.map((e) => [e.line, e.signature])).toEqual([
      [3, "export class A"],
      [4, "run(): void"],
    ]);
  });

  it("keeps line numbers right after non-ASCII text", async () => {
    const text = "const s = 'héllo 😀';\n/* ü */ export function f(ä: string) {}\n";
    const { entries } = await outlineSource(text, typescript);
    expect(entries.map((e) => [e.line, e.signature])).toEqual([[2, "export function f(ä: string)"]]);
  });

  it(`cuts a signature line longer than ${maxSignatureChars} characters`, async () => {
    const params = Array.from({ length: 60 }, (_, i) => `p${i}: number`).join(", ");
    const { entries } = await outlineSource(`function wide(${params}) {}\n`, typescript);
    const [entry] = entries;
    expect(entry?.signature).toHaveLength(maxSignatureChars);
    expect(entry?.signature.startsWith("function wide(p0: number, p1: number")).toBe(true);
    expect(entry?.signature.endsWith("…")).toBe(true);
  });

  it("lists nothing defined inside a function, however deep, and nests classes in classes", async () => {
    const text = [
      "def outer():",
      "    class Local:",
      "        def method(self): ...",
      "    def inner(): ...",
      "",
      "class A:",
      "    class B:",
      "        class C:",
      "            def deep(self): ...",
    ].join("\n");
    const { entries } = await outlineSource(text, python);
    expect(entries.map((e) => [e.depth, e.signature])).toEqual([
      [0, "def outer()"],
      [0, "class A"],
      [1, "class B"],
      [2, "class C"],
      [3, "def deep(self)"],
    ]);
  });

  it("gives up on a parse that takes longer than the time limit, and parses the next file normally", async () => {
    const huge = "function a() { return [1, 2, 3].map((x) => x * 2); }\n".repeat(40_000);
    await expect(outlineSource(huge, typescript, { timeoutMs: 1 })).rejects.toThrow(/parsing took longer than/);
    const { entries } = await outlineSource("function b() {}\n", typescript);
    expect(entries.map((e) => e.signature)).toEqual(["function b()"]);
  });

  it("stops when the task is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const huge = "function a() { return 1; }\n".repeat(40_000);
    await expect(outlineSource(huge, typescript, { signal: controller.signal })).rejects.toThrow(/abort/i);
  });
});

describe("outlineFile", () => {
  it("picks the language from the file extension, and skips files it does not read", async () => {
    expect((await outlineFile("a.py", "def f(): pass\n"))?.language.id).toBe("python");
    expect((await outlineFile("a.TS", "function f() {}\n"))?.language.id).toBe("typescript");
    expect((await outlineFile("a.tsx", "function f() {}\n"))?.language.id).toBe("tsx");
    expect(await outlineFile("README.md", "# Title\n")).toBeUndefined();
    expect(await outlineFile("Makefile", "all:\n")).toBeUndefined();
  });
});
