import type { TaskState } from "./task-state.ts";

const count = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : `${n}`);

/** Model, tokens, context fill, cost and checkpoints of the task on screen. */
export function StatusBar({ task }: { task: TaskState }) {
  const fill = task.context_window ? Math.min(100, Math.round((task.usage.context_tokens / task.context_window) * 100)) : null;
  return (
    <footer className="status-bar" aria-label="Task status">
      <span title={task.provider}>
        <span className="muted">model</span> {task.model || "—"}
      </span>
      <span>
        <span className="muted">mode</span> {task.mode === "plan" ? "Plan" : "Act"}
      </span>
      <span>
        <span className="muted">tokens</span> {count(task.usage.input_tokens)} in · {count(task.usage.output_tokens)} out
      </span>
      {fill !== null ? (
        <span>
          <span className="muted">context</span> {fill}%
        </span>
      ) : null}
      <span>
        <span className="muted">cost</span> {task.usage.cost_usd === null ? "—" : `$${task.usage.cost_usd.toFixed(4)}`}
        {task.usage.budget_usd !== undefined ? ` / $${task.usage.budget_usd.toFixed(2)}` : null}
      </span>
      <span>
        <span className="muted">checkpoints</span> {task.checkpoints.length}
      </span>
    </footer>
  );
}
