import { describe, expect, it } from "vitest";
import { compilePattern, mayMatch, mustMatch } from "./glob.js";
import { lit, type Piece } from "./words.js";

const text = (s: string): Piece[] => [lit(s)];
const any = (source = "$X"): Piece => ({ kind: "any", source });
const one = (source = "?"): Piece => ({ kind: "one", source });

describe("patterns on literal segments", () => {
  const both = (pattern: string, segment: string): [boolean, boolean] => [
    mayMatch(compilePattern(pattern), text(segment)),
    mustMatch(compilePattern(pattern), text(segment)),
  ];

  it("anchors on the whole segment", () => {
    expect(both("npm install", "npm install")).toEqual([true, true]);
    expect(both("npm install", "npm install lodash")).toEqual([false, false]);
    expect(both("install", "npm install")).toEqual([false, false]);
  });

  it("lets * span spaces and slashes but needs the literal parts", () => {
    expect(both("git *", "git push origin main")).toEqual([true, true]);
    expect(both("cat *", "cat /etc/passwd")).toEqual([true, true]);
    expect(both("git *", "git")).toEqual([false, false]);
    expect(both("*", "")).toEqual([true, true]);
    expect(both("rm * /", "rm -r -f /")).toEqual([true, true]);
  });

  it("matches ? with exactly one character", () => {
    expect(both("ls -l?", "ls -la")).toEqual([true, true]);
    expect(both("ls -l?", "ls -lah")).toEqual([false, false]);
    expect(both("ls -l?", "ls -l")).toEqual([false, false]);
  });

  it("is case-sensitive", () => {
    expect(both("git *", "GIT status")).toEqual([false, false]);
  });

  it("treats runs of whitespace in a pattern as one space", () => {
    expect(both("  npm   test ", "npm test")).toEqual([true, true]);
  });

  it("handles characters outside the BMP as one character", () => {
    expect(both("echo ?", "echo 😀")).toEqual([true, true]);
  });
});

describe("holes", () => {
  it("may match when some value of the hole fits (deny rules)", () => {
    expect(mayMatch(compilePattern("rm -rf *"), [any(), lit(" -rf /")])).toBe(true); // $X = rm
    expect(mayMatch(compilePattern("rm -rf *"), [lit("rm"), any(), lit("-rf"), any(), lit("/")])).toBe(true); // ${IFS}
    expect(mayMatch(compilePattern("rm -rf *"), [lit("rm -r"), one(), lit(" /")])).toBe(true); // -r?
    expect(mayMatch(compilePattern("rm -rf /"), [lit("rm -r"), one(), one(), lit(" /")])).toBe(false); // two characters cannot be "f"
    expect(mayMatch(compilePattern("git push"), [lit("ls "), any()])).toBe(false);
    expect(mayMatch(compilePattern("rm"), [lit("r"), any(), lit("m")])).toBe(true); // the hole may be empty
  });

  it("must match for every value of the hole (allow rules)", () => {
    expect(mustMatch(compilePattern("npm test *"), [lit("npm test "), any()])).toBe(true);
    expect(mustMatch(compilePattern("npm test"), [lit("npm test "), any()])).toBe(false);
    expect(mustMatch(compilePattern("npm test a*"), [lit("npm test "), any()])).toBe(false);
    expect(mustMatch(compilePattern("ls -?"), [lit("ls -"), one()])).toBe(true);
    expect(mustMatch(compilePattern("ls -?"), [lit("ls -"), any()])).toBe(false);
    expect(mustMatch(compilePattern("*"), [any(), lit(" -rf /")])).toBe(true);
  });
});
