import { describe, expect, it } from "vitest";
import { fillWorkflow, splitArguments } from "./workflow-arguments.js";

describe("fillWorkflow", () => {
  it("puts $ARGUMENTS and $1… where the workflow names them, instead of appending", () => {
    expect(fillWorkflow("Release $1 to $2. Notes: $ARGUMENTS", "2.1.0 staging")).toBe("Release 2.1.0 to staging. Notes: 2.1.0 staging");
  });

  it("keeps quoted arguments whole and leaves a missing one empty", () => {
    expect(splitArguments(`"fix the parser" 'src/a b.ts' three`)).toEqual(["fix the parser", "src/a b.ts", "three"]);
    expect(fillWorkflow("Do [$1] in [$3]", `"fix the parser" x`)).toBe("Do [fix the parser] in []");
  });

  it("appends the arguments to a workflow without placeholders, and leaves look-alikes alone", () => {
    expect(fillWorkflow("Review the diff.", "carefully")).toBe("Review the diff.\n\nArguments: carefully");
    expect(fillWorkflow("Review the diff.", "")).toBe("Review the diff.");
    expect(fillWorkflow("Costs $10 and $ARGUMENTSX", "a")).toBe("Costs $10 and $ARGUMENTSX\n\nArguments: a");
  });
});
