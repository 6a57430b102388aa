import { addUsage, emptyUsage, type Usage } from "../model/types.js";
import type { ExecutedCall } from "./execute-call.js";

/**
 * What a task has used and cost, across its runs (a resumed task starts from its record): its own
 * model requests, and model use its calls caused elsewhere (sub-agents), which counts as its own.
 * Budgets, snapshots, the journal and the result all read the same totals from here.
 */
export class TaskSpend {
  private total: Usage;
  /** USD; null while no request had a known price. */
  private cost: number | null;

  constructor(prior?: { usage: Usage; costUsd: number | null }) {
    this.total = prior ? { ...prior.usage } : emptyUsage();
    this.cost = prior ? prior.costUsd : null;
  }

  get usage(): Usage {
    return this.total;
  }

  get costUsd(): number | null {
    return this.cost;
  }

  add(usage: Usage, costUsd: number | null): void {
    this.total = addUsage(this.total, usage);
    if (costUsd !== null) this.cost = (this.cost ?? 0) + costUsd;
  }

  /** Model use a step's calls caused outside this task's requests (sub-agents) counts as the task's own. */
  addSpent(executed: readonly ExecutedCall[]): void {
    for (const done of executed) {
      const spent = done.result.spent;
      if (spent) this.add(spent.usage, spent.costUsd);
    }
  }
}
