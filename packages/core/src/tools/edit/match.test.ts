import { describe, expect, it } from "vitest";
import { closestRegion } from "./closest-region.js";
import { splitSource } from "./line-endings.js";
import { LineMatcher } from "./match.js";
import { reindent } from "./reindent.js";

const find = (file: string, search: string[]) => new LineMatcher(splitSource(file)).find(search);

describe("LineMatcher", () => {
  it("says which strategy found the lines", () => {
    expect(find("a\n  b  \nc\n", ["a"])).toEqual({ type: "match", match: { type: "lines", strategy: "exact", first: 0, count: 1 } });
    expect(find("a\n  b  \nc\n", ["b", "c"])).toEqual({ type: "match", match: { type: "lines", strategy: "trimmed", first: 1, count: 2 } });
    expect(find("x\tint  y;\n", ["x int y;"])).toEqual({ type: "match", match: { type: "lines", strategy: "whitespace", first: 0, count: 1 } });
  });

  it("maps a fragment found in a CRLF file back to offsets of the file as stored", () => {
    const source = splitSource("ab\r\ncd\r\nef\r\n");
    const outcome = new LineMatcher(source).find(["b", "cd", "e"]);
    expect(outcome).toEqual({ type: "match", match: { type: "fragment", strategy: "fragment", start: 1, end: 9, first: 0, count: 3 } });
    expect(source.text.slice(1, 9)).toBe("b\r\ncd\r\ne");
  });

  it("lists at most 10 candidates of an ambiguous SEARCH, with the total", () => {
    const outcome = find("x\n".repeat(25), ["x"]);
    expect(outcome.type === "ambiguous" && [outcome.total, outcome.candidates.length, outcome.candidates[9]]).toEqual([25, 10, { first: 9, count: 1 }]);
  });

  it("does not match whole lines by their ends alone", () => {
    expect(find("{\n  keep\n}\n", ["{", "  other", "}"])).toEqual({ type: "none" });
  });

  it("answers the same once many lookups have made it index the file", () => {
    const matcher = new LineMatcher(splitSource("a\n  b  \nc\nx\tint  y;\nd\nd\ncafe\u0301\n"));
    const searches = [["b", "c"], ["x int y;"], ["d"], ["café"], ["zzz"], ["c", "x int y;"]];
    const first = searches.map((s) => matcher.find(s));
    expect(first.map((o) => (o.type === "match" ? o.match.strategy : o.type))).toEqual([
      "trimmed",
      "whitespace",
      "ambiguous",
      "whitespace",
      "none",
      "whitespace",
    ]);
    for (let round = 0; round < 12; round++) expect(searches.map((s) => matcher.find(s))).toEqual(first);
  });

  it("compares in place exactly as the keys do, including non-ASCII whitespace and accents", () => {
    const file = "\u00a0\u00a0x = 1\nnai\u0308ve\u00a0 value\n";
    expect(find(file, ["x = 1"])).toMatchObject({ type: "match", match: { strategy: "trimmed", first: 0 } });
    expect(find(file, ["naïve value"])).toMatchObject({ type: "match", match: { strategy: "whitespace", first: 1 } });
  });

  it("does not let a SEARCH run past the end of the file", () => {
    expect(find("a\nb\n", ["b", "c"])).toEqual({ type: "none" });
  });
});

describe("reindent", () => {
  it("leaves REPLACE alone when indentation already agrees", () => {
    expect(reindent(["  a  "], ["  a"], ["  b", "c"])).toEqual(["  b", "c"]);
  });

  it("shifts by the prefix the file adds", () => {
    expect(reindent(["if x:", "    y()"], ["        if x:", "            y()"], ["if x:", "    z()", "w()"])).toEqual([
      "        if x:",
      "            z()",
      "        w()",
    ]);
  });

  it("removes the prefix the model added, clamping lines shallower than it", () => {
    expect(reindent(["    a", "      b"], ["a", "  b"], ["    a", "      c", "  d"])).toEqual(["a", "  c", "d"]);
  });

  it("rescales levels: 2-space model, tab file", () => {
    expect(reindent(["  a", "    b"], ["\ta", "\t\tb"], ["  a", "    b", "      c", "d"])).toEqual(["\ta", "\t\tb", "\t\t\tc", "d"]);
  });

  it("keeps blank REPLACE lines exactly", () => {
    expect(reindent(["a"], ["    a"], ["a", "", "   ", "b"])).toEqual(["    a", "", "   ", "    b"]);
  });
});

describe("closestRegion", () => {
  it("finds the window most like the SEARCH", () => {
    const file = ["import x", "function alpha() {", "  return 1;", "}", "function beta() {", "  return 2;", "}"];
    const region = closestRegion(file, ["function beta() {", "  return 3;", "}"]);
    expect(region && { first: region.first, count: region.count }).toEqual({ first: 4, count: 3 });
    expect(region?.similarity).toBeGreaterThan(0.8);
  });

  it("finds it in a file too large to compare every window with every line", () => {
    const file = Array.from({ length: 60_000 }, (_, i) => `const value${i} = compute(${i});`);
    const search = Array.from({ length: 12 }, (_, i) => `const value${41_000 + i} = compute(${41_000 + i}); // changed`);
    expect(closestRegion(file, search)?.first).toBe(41_000);
  });

  it("has nothing to offer for an empty file", () => {
    expect(closestRegion([], ["a"])).toBeUndefined();
  });
});
