import { describe, expect, it } from "vitest";
import { askFollowupQuestionTool } from "./ask-followup-question.js";
import { testContext } from "./test-context.js";
import type { ToolContext } from "./tool.js";

const ctx: ToolContext = testContext("/nowhere", { resolvePath: (p) => p });

const parse = (input: unknown) => askFollowupQuestionTool.parameters.safeParse(input);

describe("ask_followup_question", () => {
  it("hands the question and options to the loop as an ask", async () => {
    const input = askFollowupQuestionTool.parameters.parse({
      question: "Which database?",
      options: ["PostgreSQL", "SQLite"],
    });
    expect(await askFollowupQuestionTool.execute(input, ctx)).toEqual({
      content: "",
      control: { type: "ask", question: "Which database?", options: ["PostgreSQL", "SQLite"] },
    });
  });

  it("asks an open question when no options are given", async () => {
    const input = askFollowupQuestionTool.parameters.parse({ question: "What should the CLI be called?" });
    expect(await askFollowupQuestionTool.execute(input, ctx)).toEqual({
      content: "",
      control: { type: "ask", question: "What should the CLI be called?", options: [] },
    });
  });

  it("accepts 2 to 5 options and explains the limit otherwise", () => {
    expect(parse({ question: "q", options: ["a", "b"] }).success).toBe(true);
    expect(parse({ question: "q", options: ["a", "b", "c", "d", "e"] }).success).toBe(true);
    for (const options of [["a"], ["a", "b", "c", "d", "e", "f"]]) {
      const result = parse({ question: "q", options });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe("Give 2 to 5 options, or leave options out.");
    }
  });

  it("takes options as a real array, not a string", () => {
    expect(parse({ question: "q", options: '["a","b"]' }).success).toBe(false);
    expect(parse({ question: "", options: ["a", "b"] }).success).toBe(false);
  });

  it("is an interaction offered in both modes that touches no files", () => {
    expect(askFollowupQuestionTool.kind).toBe("interaction");
    expect(askFollowupQuestionTool.modes).toEqual(["act", "plan"]);
    expect(askFollowupQuestionTool.access).toBeUndefined();
    expect(askFollowupQuestionTool.summarize?.({ question: "Which database?\nMore detail here." })).toBe(
      "ask: Which database?",
    );
    expect(askFollowupQuestionTool.description).toContain("<options>[");
  });
});
