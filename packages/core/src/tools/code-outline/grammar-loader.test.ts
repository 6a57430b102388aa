import { describe, expect, it } from "vitest";
import { loadLanguage } from "./grammar-loader.js";
import { languages } from "./languages.js";

describe("loadLanguage", () => {
  // Grammars must match web-tree-sitter's ABI: tree-sitter-wasms (ABI 14, old dylink) fails to load with 0.26+.
  it.each(Object.values(languages))("loads the $displayName grammar and compiles its query", async (spec) => {
    const { parser, query } = await loadLanguage(spec);
    expect(parser.language).not.toBeNull();
    expect(query.captureNames).toContain("name");
    expect(query.captureNames.some((name) => name.startsWith("definition."))).toBe(true);
  });

  it("loads each language once and hands out the same parser afterwards", async () => {
    const [a, b] = await Promise.all([loadLanguage(languages.go), loadLanguage(languages.go)]);
    const c = await loadLanguage(languages.go);
    expect(a).toBe(b);
    expect(c).toBe(a);
  });

  it("reports a grammar that cannot be found, and tries again on the next call", async () => {
    const missing = { ...languages.go, id: "missing", grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-nothing.wasm" };
    await expect(loadLanguage(missing)).rejects.toThrow(/tree-sitter-nothing\.wasm/);
    await expect(loadLanguage(missing)).rejects.toThrow(/tree-sitter-nothing\.wasm/);
  });
});
