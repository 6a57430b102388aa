import type { ResultSubtype } from "../events/index.js";
import type { Usage } from "../model/types.js";
import type { TaskState } from "../storage/task-journal.js";
import type { TaskResult } from "./task-options.js";
import { usageJson } from "./usage-json.js";

/**
 * One run of a task (run or continue) as its result reports it: the turns it took, its time and
 * the model's share of it, and the calls the person denied. The task's totals (usage, cost) span
 * every run and come from TaskSpend.
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
