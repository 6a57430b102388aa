import { z } from "zod";
import { firstLine } from "./first-line.js";
import { defineTool } from "./tool.js";

const parameters = z.object({
  question: z.string().min(1).describe("One specific question."),
  options: z
    .array(z.string().min(1))
    .min(2, { error: "Give 2 to 5 options, or leave options out." })
    .max(5, { error: "Give 2 to 5 options, or leave options out." })
    .optional()
    .describe('2 to 5 answers to pick from, as a JSON array of strings, e.g. ["Use PostgreSQL", "Use SQLite"].'),
});

const description = `Ask the user a question only they can answer: an ambiguous requirement, a choice with real trade-offs, a missing credential or detail. Don't ask what your tools can find out.
Optionally offer 2 to 5 short answers (the user may still write their own), but no options that switch modes or just say "yes"/"no" to what you should decide. Returns the answer.

Example:
<ask_followup_question>
<question>Which database should the new service use?</question>
<options>["PostgreSQL (matches the other services)", "SQLite (simpler, single file)"]</options>
</ask_followup_question>`;

export const askFollowupQuestionTool = defineTool({
  name: "ask_followup_question",
  description,
  // The rules already say to ask only when the task is truly ambiguous, so the first request offers it in one line.
  brief: "Ask the user what only they can answer (an unclear requirement, a real trade-off, a missing detail); optionally offer 2-5 answers to pick, never a bare yes/no.",
  parameters,
  kind: "interaction",
  modes: ["act", "plan"],
  summarize: (input) => `ask: ${firstLine(input.question)}`,
  async execute(input) {
    return { content: "", control: { type: "ask", question: input.question, options: input.options ?? [] } };
  },
});
