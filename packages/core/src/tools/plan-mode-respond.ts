import { z } from "zod";
import { defineTool } from "./tool.js";

const parameters = z.object({
  response: z.string().min(1).describe("What you have found and your plan (or your answer to the user's message), in clear, concise markdown."),
  needs_more_exploration: z
    .boolean()
    .optional()
    .describe("true when you must read or search more before the plan is ready; you then keep exploring instead of waiting for the user."),
});

const description = `Respond to the user in PLAN mode: share what you found and the plan you propose, or answer their question. This is the only way to talk to the user in PLAN mode.
When the plan is ready, the user reviews it: they approve it (and you switch to ACT mode to carry it out) or ask for changes. If you still need to look at files first, set needs_more_exploration to true and go on exploring.

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
