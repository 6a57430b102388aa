import type { AgentEvent } from "../events/index.js";
import { addUsage, emptyUsage, type Usage } from "../model/types.js";
import type { Mode } from "../policy/mode.js";
import type { AgentDefinition } from "../prompt/agent-definitions.js";
import type { SharedRules } from "../runtime/task-options.js";
import type { Task } from "../runtime/task.js";
import { firstLine } from "../tools/first-line.js";
import { allTools } from "../tools/registry.js";
import type { SubagentOutcome, SubagentReport, SubagentRunner } from "../tools/subagent-capability.js";
import type { AnyTool } from "../tools/tool.js";
import { drainRun } from "./drain.js";

/** What a sub-agent may use unless its definition says otherwise: it reads and reports, nothing else. */
export const readOnlySubagentTools = ["read_file", "search_files", "list_files", "list_code_definition_names", "web_fetch"] as const;

/** Never a sub-agent's, whatever a definition lists: it cannot ask the person, plan, hand over or start sub-agents of its own. */
const neverForSubagents = new Set(["use_subagents", "new_task", "ask_followup_question", "plan_mode_respond", "act_mode_respond", "attempt_completion"]);

/** Claude Code's tool names in agent definitions, as Cairn's tools. */
const claudeCodeNames: Record<string, string[]> = {
  read: ["read_file"],
  grep: ["search_files"],
  glob: ["list_files"],
  ls: ["list_files"],
  webfetch: ["web_fetch"],
  edit: ["replace_in_file"],
  multiedit: ["replace_in_file"],
  write: ["write_to_file"],
  bash: ["execute_command"],
};

/** What a sub-agent's session is opened with. */
export type SubagentSpec = {
  prompt: string;
  tools: readonly AnyTool[];
  instructions: string;
  /** The definition's model; absent: the parent's. */
  model?: string;
  /** Its share of what is left of the parent's budget (USD). */
  maxBudgetUsd?: number;
  /**
   * The parent's "always allow" rules, the list itself: to the person a parent and its sub-agents
   * are one task, so what they allowed for it holds in each sub-agent without asking again. Rules
   * only answer approvals: a call to a tool the sub-agent is not given is refused before any rule.
   */
  rules: SharedRules;
};

/** The part of a session the runner needs from a sub-agent's: its task and how to end it. */
export type SubagentSession = { id: string; task: Pick<Task, "run" | "abort">; close(): Promise<void> };

/** Told to a sub-agent started from a task in PLAN mode, whose definition listed tools it was not given. */
const planNote = "The task that started you is in PLAN mode: you can only read, whatever else your definition lists. Change nothing; say in your report what should change, where and why.";

const subagentNote = `You are a sub-agent: another agent gave you the task below and will read only your final report. Work with your tools, then call attempt_completion with the report: what you found, with exact file paths, names and line numbers where they matter. You cannot ask questions, nor ask for approval: a call that needs it runs only if the person already allowed it for this task. When one is refused, do not look for another way to do the same; say in your report exactly what you needed (the URL, file or command), so the agent that started you can ask for it.`;

/**
 * use_subagents for one session: each prompt opens a task of its own (through `open`, the session
 * module's, which links it to the parent's), and they run side by side. Events of each go to the
 * parent's stream as `subagent` events under the parent call; the parent's abort stops them all.
 */
export function subagentRunner(options: {
  agents: readonly AgentDefinition[];
  /** What is left of the parent's budget (USD), or undefined when it has none. */
  budgetLeft(): number | undefined;
  /** The parent's live "always allow" rules, shared with every sub-agent it starts. */
  rules: SharedRules;
  /** The parent's mode as the call runs: a sub-agent gets no tool the parent could not use in it. */
  mode(): Mode;
  open(spec: SubagentSpec): Promise<SubagentSession>;
}): SubagentRunner {
  return {
    async run(request): Promise<SubagentOutcome> {
      const definition = request.agent === undefined ? undefined : options.agents.find((a) => a.name === request.agent);
      if (request.agent !== undefined && !definition) {
        const known = options.agents.map((a) => a.name);
        const which = known.length > 0 ? `the agent definitions here are: ${known.join(", ")}` : "there are no agent definitions here";
        return { ok: false, error: `No agent definition named "${request.agent}" (${which}). Call use_subagents again without agent, or with one of those names.` };
      }
      const mode = options.mode();
      const tools = subagentTools(definition, mode).map((tool) => heldToParentMode(tool, options.mode));
      const left = options.budgetLeft();
      const share = left === undefined ? undefined : Math.max(left, 0) / request.prompts.length;
      const narrowed = tools.length < subagentTools(definition, "act").length;
      const note = narrowed ? `${subagentNote}\n\n${planNote}` : subagentNote;
      const instructions = definition?.instructions ? `${note}\n\n${definition.instructions}` : note;
      const reports = await Promise.all(
        request.prompts.map((prompt, index) =>
          runOne({ index, prompt, parentToolUseId: request.parentToolUseId, signal: request.signal, emit: request.emit }, () =>
            options.open({ prompt, tools, instructions, rules: options.rules, ...(definition?.model ? { model: definition.model } : {}), ...(share !== undefined ? { maxBudgetUsd: share } : {}) }),
          ),
        ),
      );
      return { ok: true, reports };
    },
  };
}

type One = { index: number; prompt: string; parentToolUseId: string; signal: AbortSignal; emit(event: AgentEvent): void };

async function runOne(one: One, open: () => Promise<SubagentSession>): Promise<SubagentReport> {
  const base = { index: one.index, usage: emptyUsage(), costUsd: null };
  if (one.signal.aborted) return { ...base, taskId: "", ok: false, report: "Not started: the task was stopped." };
  let session: SubagentSession;
  try {
    session = await open();
  } catch (error) {
    return { ...base, taskId: "", ok: false, report: `The sub-agent could not start: ${(error as Error).message.split("\n")[0]}` };
  }
  const progress = (status: "running" | "completed" | "failed", activity: string, extra: Partial<Extract<AgentEvent, { type: "subagent" }>> = {}) =>
    one.emit({ type: "subagent", parent_tool_use_id: one.parentToolUseId, index: one.index, task_id: session.id, status, activity, ...extra });
  const stop = () => session.task.abort();
  one.signal.addEventListener("abort", stop, { once: true });
  try {
    progress("running", firstLine(one.prompt));
    const waiting = new Map<string, { category: string; summary: string }>();
    const result = await drainRun(session.task.run(one.prompt), (event) => {
      if (event.type === "tool_call") progress("running", event.summary);
      if (event.type === "tool_call_update" && event.status === "awaiting_approval") waiting.set(event.tool_use_id, event.approval);
      // A sub-agent has no way to ask the person (it never reaches the host), so a call it needed
      // approval for is refused; the person sees it here, or the refusal would show nowhere.
      const asked = event.type === "tool_call_update" && event.status === "denied" ? waiting.get(event.tool_use_id) : undefined;
      if (asked) progress("running", `refused, needs your approval (${asked.category}) and sub-agents cannot ask: ${asked.summary}`);
    });
    const usage = usageOf(result.usage);
    const ok = result.subtype === "success";
    const report = ok ? result.result : `The sub-agent stopped without a report (${result.subtype}): ${result.result}`;
    progress(ok ? "completed" : "failed", firstLine(report), { usage: result.usage, cost_usd: result.total_cost_usd });
    return { index: one.index, taskId: session.id, ok, report, usage, costUsd: result.total_cost_usd };
  } finally {
    one.signal.removeEventListener("abort", stop);
    await session.close();
  }
}

/**
 * A definition's tools as Cairn's (Claude Code's names too), always with attempt_completion to
 * report; the read-only set by default. Only those the parent's `mode` has: started from PLAN
 * mode, a sub-agent only reads whatever its definition lists (it runs in ACT mode itself, where
 * attempt_completion is, so its tools are what holds it to the parent's mode).
 */
export function subagentTools(definition: Pick<AgentDefinition, "tools"> | undefined, mode: Mode = "act"): AnyTool[] {
  const wanted = new Set<string>();
  for (const name of definition?.tools ?? readOnlySubagentTools) {
    for (const mapped of claudeCodeNames[name.toLowerCase()] ?? [name]) wanted.add(mapped);
  }
  const chosen = allTools.filter((t) => wanted.has(t.name) && !neverForSubagents.has(t.name) && t.modes.includes(mode));
  return [...chosen, ...allTools.filter((t) => t.name === "attempt_completion")];
}

/**
 * A tool the parent's mode may take away while the sub-agent runs (the person switched the task to
 * PLAN mode): from then on its calls are refused, as the parent's own would be.
 */
function heldToParentMode(tool: AnyTool, mode: () => Mode): AnyTool {
  if (tool.modes.includes("plan") || tool.name === "attempt_completion") return tool;
  return {
    ...tool,
    execute: (input, ctx) => {
      const now = mode();
      if (!tool.modes.includes(now)) return Promise.resolve({ content: `${tool.name} was not run: the task that started you switched to ${now.toUpperCase()} mode, where it is not available. Change nothing more; report what should change.`, isError: true });
      return tool.execute(input, ctx);
    },
  };
}

/** True when a definition's sub-agents can change nothing: every tool they get only reads (or reports). */
export function readOnlySubagents(definition: Pick<AgentDefinition, "tools"> | undefined): boolean {
  return subagentTools(definition).every((t) => t.kind === "read" || t.readOnly === true || t.kind === "control");
}

function usageOf(json: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }): Usage {
  return addUsage(emptyUsage(), { inputTokens: json.input_tokens, outputTokens: json.output_tokens, cacheReadTokens: json.cache_read_input_tokens, cacheWriteTokens: json.cache_creation_input_tokens });
}
