import { z } from "zod";
import { defineTool } from "./tool.js";

const parameters = z.object({
  result: z
    .string()
    .min(1)
    .describe("The final result: what you did and what the user should know. Final: no questions, no offers of further help."),
  command: z
    .string()
    .optional()
    .describe("A command that shows the result, e.g. `open index.html` or `npm run dev`. Not for echo, cat or tests."),
});

const description = `Present the result of the task to the user. Use it only when the task is done: every change made, and their success confirmed from the tool results you received (tests or commands you ran, files you read back). Never use it while an earlier tool call's outcome is unknown, and never for a progress update.
The result must be final: describe what was done (and anything the user must know, such as a step you could not do), without ending in a question or an offer of further help. Optionally give a command that lets the user see the result.

Example:
<attempt_completion>
<result>Added input validation to the signup form: emails are checked client- and server-side, and the 4 new tests in test/signup.test.ts pass.</result>
</attempt_completion>`;

export const attemptCompletionTool = defineTool({
  name: "attempt_completion",
  description,
  parameters,
  kind: "control",
  modes: ["act"],
  summarize: (input) => `complete: ${firstLine(input.result)}`,
  async execute(input) {
    // An empty <command></command> means no command.
    const control =
      input.command === undefined || input.command.trim() === ""
        ? ({ type: "complete", result: input.result } as const)
        : ({ type: "complete", result: input.result, command: input.command } as const);
    return { content: input.result, control };
  },
});

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
