import { describe, expect, it } from "vitest";
import { summarizeRewrite } from "./rewrite-summary.js";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

describe("summarizeRewrite", () => {
  it("shows counts and the changed regions with context and line numbers", () => {
    const before = numbered(100);
    const after = [...before];
    after[9] = "LINE TEN";
    after.splice(50, 1);
    const summary = summarizeRewrite(before.join("\n"), after.join("\n"));
    expect(summary).toMatch(/^Lines: \+1 −2\./);
    expect(summary).toContain("@@ -8 +8 @@\n line 8\n line 9\n-line 10\n+LINE TEN\n line 11\n line 12");
    expect(summary).toContain("-line 51");
  });

  it("caps a rewrite of everything", () => {
    const summary = summarizeRewrite(numbered(500).join("\n"), numbered(500).map((l) => l.toUpperCase()).join("\n"));
    expect(summary.split("\n").length).toBeLessThanOrEqual(62);
    expect(summary).toContain("more changes not shown");
  });

  it("says when nothing changed", () => {
    expect(summarizeRewrite("a\nb", "a\nb")).toBe("No line changed.");
  });
});
