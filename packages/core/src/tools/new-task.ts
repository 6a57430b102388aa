import { z } from "zod";
import { firstLine } from "./first-line.js";
import { defineTool } from "./tool.js";

const parameters = z.object({
  context: z
    .string()
    .min(1)
    .describe("Everything the next task needs, as its opening message: the goal, what is done, decisions and why, the files involved (exact paths), what is left."),
});

const description = `Hand the work over to a fresh task with an empty conversation, when this one has grown long or the next part stands on its own. The new task starts from \`context\` alone: it sees nothing of this conversation, so write it as instructions to the agent that picks it up: the goal, what is done, the decisions made and why, the files involved (exact paths), the state of the work and the next steps.
Do not call it to avoid finishing: when the work is done, use attempt_completion.

Example:
<new_task>
<context>Goal: add rate limiting to the API (src/server.ts). Done: the limiter in src/limit.ts with tests in test/limit.test.ts (passing). Decided: a token bucket per API key, 100 requests/minute, because keys are what clients share. Left: wire the limiter into src/server.ts for every /api route, return 429 with Retry-After, and document it in README.md.</context>
</new_task>`;

export const newTaskTool = defineTool({
  name: "new_task",
  description,
  // Rarely called, and at most once: the brief must carry all a hand-off needs, since the call ends the task.
  brief: "Hand the work over to a fresh task that starts from `context` alone (goal, what is done, decisions and why, exact file paths, next steps). Not a way to avoid finishing.",
  parameters,
  kind: "control",
  modes: ["act", "plan"],
  summarize: (input) => `new task: ${firstLine(input.context)}`,
  async execute(input, ctx) {
    if (ctx.handoffs && ctx.handoffs.left <= 0) {
      return {
        content: `new_task refused: this task is already the end of a chain of ${ctx.handoffs.limit} hand-offs (the maxHandoffs setting). Finish the work in this task and call attempt_completion.`,
        isError: true,
      };
    }
    return { content: "Handing over to a new task with this context.", control: { type: "new_task", context: input.context } };
  },
});
