import { expect, it } from "vitest";
import { describeNewProblems, newProblems, toProblems, type Problem } from "./problems.js";

const p = (line: number, message: string, code?: string): Problem => ({ line, column: 1, severity: "error", message, source: "typescript", ...(code ? { code } : {}) });

it("a problem the file had before the edit is not new, even where lines moved", () => {
  const before = [p(4, "Type 'number' is not assignable to type 'string'.", "2322")];
  const after = [p(3, "Argument of type 'string' is not assignable to parameter of type 'number'.", "2345"), p(5, "Type 'number' is not assignable to type 'string'.", "2322")];
  expect(newProblems(before, after)).toEqual([after[0]]);
});

it("one more of the same problem is new: counted, not just matched", () => {
  const before = [p(1, "Cannot find name 'x'.", "2304")];
  const after = [p(1, "Cannot find name 'x'.", "2304"), p(9, "Cannot find name 'x'.", "2304")];
  expect(newProblems(before, after)).toEqual([after[1]]);
});

it("warnings count only when asked for; hints and information never", () => {
  const diagnostics = [
    { range: { start: { line: 0, character: 2 } }, severity: 1, message: "bad", code: 1 },
    { range: { start: { line: 1, character: 0 } }, severity: 2, message: "meh" },
    { range: { start: { line: 2, character: 0 } }, severity: 4, message: "hint" },
  ];
  expect(toProblems(diagnostics, "x", false).map((d) => [d.line, d.column, d.severity])).toEqual([[1, 3, "error"]]);
  expect(toProblems(diagnostics, "x", true).map((d) => d.severity)).toEqual(["error", "warning"]);
});

it("the model's block is capped and says how many more there are", () => {
  const many = Array.from({ length: 25 }, (_, i) => p(i + 1, `problem ${i}`, "1"));
  const text = describeNewProblems("src/a.ts", many);
  expect(text.split("\n").filter((l) => l.startsWith("Line "))).toHaveLength(20);
  expect(text).toContain("… and 5 more.");
  expect(text).toContain("25 new errors");
});
