import type { AgentEvent, ResultSubtype } from "../events/index.js";
import type { RetryPolicy } from "../model/retry.js";
import type { Model, Usage } from "../model/types.js";
import type { ApprovalSettings } from "../policy/approval.js";
import type { ToolProtocol } from "../protocol/index.js";
import type { AnyTool } from "../tools/tool.js";
import type { TaskState } from "../storage/task-journal.js";
import type { TaskResult } from "./task-options.js";
import { usageJson } from "./usage-json.js";

/**
 * One run of a task (run or continue): what its phases share (Run) and what its result reports
 * (RunRecord: the turns it took, its time and the model's share of it, the calls the person
 * denied). The task's totals (usage, cost) span every run and come from TaskSpend.
 */
export class RunRecord {
  private readonly started = Date.now();
  /** Time spent waiting on the model. */
  apiMs = 0;
  readonly denials: TaskResult["permission_denials"] = [];

  constructor(readonly turnsAtStart: number) {}

  result(subtype: ResultSubtype, result: string, extra: Partial<TaskResult>, task: { turns: number; costUsd: number | null; usage: Usage; sessionId: string }): TaskResult {
    return {
      subtype,
      is_error: subtype !== "success" && subtype !== "needs_input",
      result,
      num_turns: task.turns - this.turnsAtStart,
      duration_ms: Date.now() - this.started,
      duration_api_ms: this.apiMs,
      total_cost_usd: task.costUsd,
      usage: usageJson(task.usage),
      session_id: task.sessionId,
      permission_denials: this.denials,
      ...extra,
    };
  }
}

/** The task's status in its journal after a run ended so. */
export function statusOf(subtype: ResultSubtype): TaskState["status"] {
  if (subtype === "success") return "completed";
  if (subtype === "needs_input") return "needs_input";
  if (subtype === "error_aborted") return "aborted";
  return "failed";
}

/** What one run (run or continue) carries from phase to phase; the last four change as it goes. */
export type Run = {
  emit: (event: AgentEvent) => void;
  protocol: ToolProtocol;
  record: RunRecord;
  approval: ApprovalSettings;
  /** The tools a turn offers (they change with the mode and what the model has used). */
  offered: () => AnyTool[];
  retry: RetryPolicy;
  /** The model answering: the fallback after a switch. */
  model: Model;
  mistakes: number;
  /** Times Stop hooks have kept the model working this run. */
  stopContinuations: number;
  /** The current turn is a retry after the provider said the request did not fit. */
  compactRetried: boolean;
};
