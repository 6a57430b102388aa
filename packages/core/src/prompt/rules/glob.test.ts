import { describe, expect, it } from "vitest";
import { compileGlob, globMatches } from "./glob.js";

function matches(glob: string, file: string): boolean {
  return globMatches(compileGlob(glob), file);
}

describe("globs for rules", () => {
  it("** spans folders, * and ? stay within one name", () => {
    expect(matches("src/**/*.ts", "src/a.ts")).toBe(true);
    expect(matches("src/**/*.ts", "src/deep/er/a.ts")).toBe(true);
    expect(matches("src/**/*.ts", "lib/a.ts")).toBe(false);
    expect(matches("src/*.ts", "src/deep/a.ts")).toBe(false);
    expect(matches("src/?.ts", "src/a.ts")).toBe(true);
    expect(matches("src/?.ts", "src/ab.ts")).toBe(false);
    expect(matches("src/**", "src/x/y.md")).toBe(true);
    expect(matches("src/", "src/x/y.md")).toBe(true);
    expect(matches("src/**", "srcx/y.md")).toBe(false);
  });

  it("a name without a slash matches at any depth; a leading / or ./ anchors it", () => {
    expect(matches("*.md", "docs/guide/intro.md")).toBe(true);
    expect(matches("Makefile", "tools/Makefile")).toBe(true);
    expect(matches("/*.md", "docs/intro.md")).toBe(false);
    expect(matches("./*.md", "README.md")).toBe(true);
    expect(matches("*.md", ".github/notes.md")).toBe(true);
  });

  it("braces, classes and escapes", () => {
    expect(matches("src/**/*.{ts,tsx}", "src/ui/App.tsx")).toBe(true);
    expect(matches("src/**/*.{ts,tsx}", "src/ui/App.jsx")).toBe(false);
    expect(matches("{src,test}/**", "test/a.ts")).toBe(true);
    expect(matches("file[0-9].txt", "file7.txt")).toBe(true);
    expect(matches("file[!0-9].txt", "file7.txt")).toBe(false);
    expect(matches("a\\*b", "a*b")).toBe(true);
    expect(matches("a\\*b", "axb")).toBe(false);
    expect(matches("a+(b).txt", "a+(b).txt")).toBe(true);
    expect(compileGlob("src/{a,b")).toEqual({ glob: "src/{a,b", error: 'unclosed "{"' });
  });
});
