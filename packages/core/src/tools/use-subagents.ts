import { z } from "zod";
import { addUsage, emptyUsage } from "../model/types.js";
import type { SubagentReport } from "./subagent-capability.js";
import { firstLine } from "./first-line.js";
import { defineTool, type AnyTool } from "./tool.js";

/** The most sub-agents one call may start. */
export const maxSubagents = 5;

const parameters = z.object({
  prompts: z
    .array(z.string().min(1))
    .min(1, { error: `Give 1 to ${maxSubagents} prompts.` })
    .max(maxSubagents, { error: `Give 1 to ${maxSubagents} prompts.` })
    .describe(`1 to ${maxSubagents} self-contained prompts, as a JSON array of strings; each sub-agent sees only its own prompt.`),
  agent: z.string().min(1).optional().describe("The name of an agent definition to run them as (default: a read-only researcher)."),
});

/**
 * An agent definition as the tool's description lists it. `readOnly`: its sub-agents' tools change
 * nothing (the session decides from the tools it gives them); absent, they may.
 */
export type AgentListing = { name: string; description: string; readOnly?: boolean };

const baseDescription = `Start 1 to ${maxSubagents} sub-agents that work in parallel, each in a fresh conversation of its own, and get their final reports back. Use them to research independent questions at once (where something is defined, how a module works, what a page says) without filling this conversation with what they read.
Each prompt must stand alone: the sub-agent knows nothing of this conversation, so say exactly what to find and what to report. By default sub-agents can only read (read_file, search_files, list_files, list_code_definition_names, web_fetch): they cannot edit files, run commands or start sub-agents; do the changes yourself from their reports.{agents}

Example:
<use_subagents>
<prompts>["Find where user sessions are created and expired in this repository; report the files, functions and the expiry rule.", "List every HTTP route in src/api/ with its method, path and handler function."]</prompts>
</use_subagents>`;

/** use_subagents, offering the agent definitions of this session (name and one line each). */
export function useSubagentsTool(agents: readonly AgentListing[]): AnyTool {
  const listed = agents.length === 0 ? "" : `\n\nAgent definitions (pass one's name as \`agent\`):\n${agents.map((a) => `- ${a.name}: ${firstLine(a.description)}`).join("\n")}`;
  return defineTool({
    name: "use_subagents",
    description: baseDescription.replace("{agents}", listed),
    // Rarely used: the first request offers one line, which still names the agent definitions so the model can pick one.
    brief: `Run 1-${maxSubagents} self-contained prompts as parallel sub-agents (read-only by default; each sees only its prompt) and get their reports back.${agents.length === 0 ? "" : ` Agent definitions (pass one as \`agent\`): ${agents.map((a) => `${a.name} (${firstLine(a.description, 60)})`).join("; ")}.`}`,
    parameters,
    kind: "read",
    // The default sub-agents only read, so their calls may run beside other reads; a definition's
    // may edit or run commands, so such a call waits its turn like an edit (and is checkpointed).
    readOnlyFor: (input) => input.agent === undefined || agents.some((a) => a.name === input.agent && a.readOnly === true),
    modes: ["act", "plan"],
    summarize: (input) => `${input.prompts.length} sub-agent${input.prompts.length === 1 ? "" : "s"}${input.agent ? ` (${input.agent})` : ""}: ${firstLine(input.prompts[0] ?? "")}`,
    async execute(input, ctx) {
      if (!ctx.subagents) return { content: "use_subagents is not available in this task (its host gives no sub-agents). Do the research yourself with the read tools.", isError: true };
      const outcome = await ctx.subagents.run(input.prompts, input.agent);
      if (!outcome.ok) return { content: outcome.error, isError: true };
      const spent = outcome.reports.reduce(
        (sum, r) => ({ usage: addUsage(sum.usage, r.usage), costUsd: sum.costUsd === null && r.costUsd === null ? null : (sum.costUsd ?? 0) + (r.costUsd ?? 0) }),
        { usage: emptyUsage(), costUsd: null as number | null },
      );
      const failed = outcome.reports.filter((r) => !r.ok).length;
      return { content: outcome.reports.map(reportText).join("\n\n"), ...(failed === outcome.reports.length ? { isError: true } : {}), spent };
    },
  });
}

function reportText(report: SubagentReport): string {
  const head = `<subagent index="${report.index + 1}" task="${report.taskId}" status="${report.ok ? "completed" : "failed"}">`;
  return `${head}\n${report.report}\n</subagent>`;
}
