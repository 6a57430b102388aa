import { z } from "zod";
import { defineTool } from "./tool.js";

const parameters = z.object({
  question: z.string().min(1).describe("The question to ask the user: specific, about the one thing you need to know."),
  options: z
    .array(z.string().min(1))
    .min(2, { error: "Give 2 to 5 options, or leave options out." })
    .max(5, { error: "Give 2 to 5 options, or leave options out." })
    .optional()
    .describe('2 to 5 answers the user can pick with one click, as a JSON array of strings, e.g. ["Use PostgreSQL", "Use SQLite"].'),
});

const description = `Ask the user a question when you cannot proceed without information only they have: an ambiguous requirement, a choice between approaches with real trade-offs, a missing credential or detail. Don't ask about things you can find out with your tools (read files, list folders, run commands).
Optionally offer 2 to 5 short answers to choose from; the user can still answer in their own words. Don't offer options that switch modes or merely say "yes"/"no" to something you should decide yourself.
Returns the user's answer.

Example:
<ask_followup_question>
<question>Which database should the new service use?</question>
<options>["PostgreSQL (matches the other services)", "SQLite (simpler, single file)"]</options>
</ask_followup_question>`;

export const askFollowupQuestionTool = defineTool({
  name: "ask_followup_question",
  description,
  parameters,
  kind: "interaction",
  modes: ["act", "plan"],
  summarize: (input) => `ask: ${firstLine(input.question)}`,
  async execute(input) {
    return { content: "", control: { type: "ask", question: input.question, options: input.options ?? [] } };
  },
});

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
