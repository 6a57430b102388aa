import type { TaskState } from "./task-state.ts";

/** The model's checklist of the task (the focus chain, task_progress): how far it is, and each step. */
export function FocusChain({ task }: { task: TaskState }) {
  if (task.checklist.length === 0) return null;
  const done = task.checklist.filter((item) => item.done).length;
  return (
    <section className="focus-chain" aria-label="Progress">
      <h3>
        Progress {done}/{task.checklist.length}
      </h3>
      <ul>
        {task.checklist.map((item, i) => (
          <li key={i} className={item.done ? "done" : "open"} data-done={item.done}>
            <span aria-hidden="true">{item.done ? "✓" : "○"}</span> <span className="visually-hidden">{item.done ? "Done: " : "To do: "}</span>
            <span className="item-text">{item.text}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
