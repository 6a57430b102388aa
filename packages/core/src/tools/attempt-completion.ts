import { z } from "zod";
import { firstLine } from "./first-line.js";
import { defineTool } from "./tool.js";

const parameters = z.object({
  result: z
    .string()
    .min(1)
    .describe("What you did and what the user should know; no questions or offers."),
  command: z
    .string()
    .optional()
    .describe("A command that shows the result, e.g. `open index.html` or `npm run dev`; not echo, cat or tests."),
});

const description = `Present the result once the task is done: every change made and confirmed by the tool results you received (tests or commands run, files read back). Never while an earlier call's outcome is unknown, never as a progress update.
The result is final: what was done and anything the user must know (such as a step you could not do), not ending in a question or an offer of more help.

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
