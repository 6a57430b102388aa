import { z } from "zod";
import { defineTool } from "./tool.js";

const parameters = z.object({
  response: z.string().min(1).describe("A short progress update."),
});

const description = `Tell the user something they should know while you work (a finding, a decision, a change of approach); you keep working. Use it rarely, never twice in a row. To ask, use ask_followup_question; when done, attempt_completion.

Example:
<act_mode_respond>
<response>The tests fail for a reason unrelated to the task (a missing fixture); I am working around it and will note it at the end.</response>
</act_mode_respond>`;

export const actModeRespondTool = defineTool({
  name: "act_mode_respond",
  description,
  // Meant to be rare, so the first request offers it in one line.
  brief: "Tell the user something worth knowing while you keep working (a finding, a change of approach). Rarely; never twice in a row.",
  parameters,
  kind: "interaction",
  modes: ["act"],
  summarize: (input) => `note: ${input.response.split("\n", 1)[0]!.slice(0, 100)}`,
  async execute() {
    return { content: "Shown to the user. Continue with the task." };
  },
});
