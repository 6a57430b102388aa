import { describe, expect, it } from "vitest";
import { parseFrontMatter } from "./front-matter.js";

describe("rules front matter", () => {
  it("reads a flow list, a block list and a single string", () => {
    expect(parseFrontMatter('---\npaths: ["src/**", \'b/*.ts\']\n---\nUse tabs.\n')).toEqual({ body: "Use tabs.\n", paths: ["src/**", "b/*.ts"] });
    expect(parseFrontMatter("---\ndescription: tests\npaths:\n  - test/**\n  - \"e2e/**\"   # end to end\n---\n\nRun vitest.")).toEqual({
      body: "Run vitest.",
      paths: ["test/**", "e2e/**"],
    });
    expect(parseFrontMatter("---\npaths: docs/**\n---\nBe brief.")).toEqual({ body: "Be brief.", paths: ["docs/**"] });
  });

  it("reads Cursor's globs (comma-separated, braces kept) and alwaysApply", () => {
    expect(parseFrontMatter("---\ndescription: x\nglobs: src/**/*.{ts,tsx}, *.css\nalwaysApply: false\n---\nbody")).toEqual({
      body: "body",
      paths: ["src/**/*.{ts,tsx}", "*.css"],
      alwaysApply: false,
    });
    expect(parseFrontMatter("---\nalwaysApply: true\n---\nbody")).toEqual({ body: "body", alwaysApply: true });
  });

  it("a file without front matter is all body; a leading horizontal rule is not front matter", () => {
    expect(parseFrontMatter("# Title\n---\nx")).toEqual({ body: "# Title\n---\nx" });
    expect(parseFrontMatter("---\n\nJust a rule after a line.\n---\nmore")).toEqual({ body: "---\n\nJust a rule after a line.\n---\nmore" });
    expect(parseFrontMatter("\uFEFF---\r\npaths: a/**\r\n---\r\nbody")).toEqual({ body: "body", paths: ["a/**"] });
  });

  it("malformed front matter gives a warning and no paths, so the rule applies always", () => {
    const unclosed = parseFrontMatter("---\npaths: src/**\nUse tabs.");
    expect(unclosed.paths).toBeUndefined();
    expect(unclosed.warning).toMatch(/never closed/);
    expect(unclosed.body).toContain("Use tabs.");

    const badList = parseFrontMatter('---\npaths: ["src/**", "b\n---\nbody');
    expect(badList).toMatchObject({ body: "body" });
    expect(badList.paths).toBeUndefined();
    expect(badList.warning).toMatch(/does not close/);

    expect(parseFrontMatter('---\npaths: "src/**\n---\nbody').warning).toMatch(/unterminated/);
    expect(parseFrontMatter("---\npaths: {a: b}\n---\nbody").warning).toMatch(/mapping/);
    expect(parseFrontMatter("---\npaths:\n---\nbody").warning).toMatch(/no globs/);
    expect(parseFrontMatter("---\npaths: []\n---\nbody").warning).toMatch(/no globs/);
  });
});
