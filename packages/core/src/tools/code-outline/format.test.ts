import { describe, expect, it } from "vitest";
import { formatOutline } from "./format.js";

describe("formatOutline", () => {
  it("right-aligns line numbers to the widest, indents members by depth and adds notes", () => {
    const text = formatOutline(
      "src/a.ts",
      [
        { kind: "class", name: "A", line: 9, signature: "export class A", depth: 0 },
        { kind: "method", name: "run", line: 120, signature: "run(): void", depth: 1 },
        { kind: "class", name: "B", line: 130, signature: "class B", depth: 1 },
        { kind: "method", name: "go", line: 131, signature: "go()", depth: 2 },
      ],
      ["has syntax errors: some definitions may be missing"],
    );
    expect(text.split("\n")).toEqual([
      "src/a.ts",
      "    9│ export class A",
      "  120│   run(): void",
      "  130│   class B",
      "  131│     go()",
      "  [has syntax errors: some definitions may be missing]",
    ]);
  });
});
