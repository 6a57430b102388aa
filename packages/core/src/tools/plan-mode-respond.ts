import { z } from "zod";
import { defineTool } from "./tool.js";

const parameters = z.object({
  response: z.string().min(1).describe("Your findings and plan (or answer), in concise markdown."),
  needs_more_exploration: z
    .boolean()
    .optional()
    .describe("true to go on exploring before the plan is ready, instead of waiting for the user."),
});

const description = `Talk to the user in PLAN mode (the only way to): share what you found and the plan you propose, or answer their question. The user then approves the plan (and you switch to ACT mode to carry it out) or asks for changes. To explore more first, set needs_more_exploration to true.

Example:
<plan_mode_respond>
<response>The login bug comes from the session cookie being set without a path. Plan:
1. Set path=/ in src/session.ts
2. Add a test in test/session.test.ts</response>
</plan_mode_respond>`;

export const planModeRespondTool = defineTool({
  name: "plan_mode_respond",
  description,
  parameters,
  kind: "control",
  modes: ["plan"],
  summarize: (input) => (input.needs_more_exploration ? "plan (exploring further)" : "plan ready for review"),
  async execute(input) {
    if (input.needs_more_exploration) {
      return { content: "Go on exploring with the read-only tools, then respond with the plan." };
    }
    return { content: input.response, control: { type: "plan", plan: input.response } };
  },
});
