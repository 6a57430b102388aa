import { describe, expect, it } from "vitest";
import { attemptCompletionTool } from "./attempt-completion.js";
import { testContext } from "./test-context.js";
import type { ToolContext } from "./tool.js";

const ctx: ToolContext = testContext("/nowhere", { resolvePath: (p) => p });

const run = (input: unknown) => attemptCompletionTool.execute(attemptCompletionTool.parameters.parse(input), ctx);

describe("attempt_completion", () => {
  it("returns the result and tells the loop the task is complete", async () => {
    expect(await run({ result: "Added the /health endpoint; tests pass." })).toEqual({
      content: "Added the /health endpoint; tests pass.",
      control: { type: "complete", result: "Added the /health endpoint; tests pass." },
    });
  });

  it("passes a demo command along", async () => {
    expect(await run({ result: "Built the page.", command: "open index.html" })).toEqual({
      content: "Built the page.",
      control: { type: "complete", result: "Built the page.", command: "open index.html" },
    });
  });

  it("treats an empty command as none", async () => {
    const result = await run({ result: "Done.", command: "  " });
    expect(result.control).toEqual({ type: "complete", result: "Done." });
  });

  it("requires a result", () => {
    expect(attemptCompletionTool.parameters.safeParse({}).success).toBe(false);
    expect(attemptCompletionTool.parameters.safeParse({ result: "" }).success).toBe(false);
  });

  it("is a control tool offered in act mode only, touching no files", () => {
    expect(attemptCompletionTool.kind).toBe("control");
    expect(attemptCompletionTool.modes).toEqual(["act"]);
    expect(attemptCompletionTool.access).toBeUndefined();
    expect(attemptCompletionTool.summarize?.({ result: "Fixed the bug.\nDetails follow." })).toBe("complete: Fixed the bug.");
  });
});
