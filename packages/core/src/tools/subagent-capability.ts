import type { AgentEvent } from "../events/index.js";
import type { Usage } from "../model/types.js";

/** One sub-agent's end: its final report (or why it has none), its stored task, what it spent. */
export type SubagentReport = {
  index: number;
  taskId: string;
  ok: boolean;
  report: string;
  usage: Usage;
  costUsd: number | null;
};

/** The reports of one use_subagents call, in prompt order, or why none ran (an unknown agent). */
export type SubagentOutcome = { ok: true; reports: SubagentReport[] } | { ok: false; error: string };

/** What a tool sees: sub-agents bound to its call (its tool_use_id, the task's abort signal, its events). */
export type SubagentCapability = {
  run(prompts: readonly string[], agent: string | undefined): Promise<SubagentOutcome>;
};

/** What a session gives a task; the task binds it to each call (see SubagentCapability). */
export type SubagentRunner = {
  run(request: { prompts: readonly string[]; agent?: string; parentToolUseId: string; signal: AbortSignal; emit(event: AgentEvent): void }): Promise<SubagentOutcome>;
};
