import { useState } from "react";
import type { CheckpointEntry } from "./api.ts";
import { CheckpointActions } from "./checkpoint-actions.tsx";
import type { TaskState } from "./task-state.ts";

function Step({ task, entry }: { task: TaskState; entry: CheckpointEntry }) {
  return (
    <li className="step">
      <div className="step-head">
        <span className="step-number">{entry.number}</span>
        <span className="step-label">{entry.label}</span>
        <span className="muted">{new Date(entry.created_at).toLocaleTimeString()}</span>
      </div>
      <CheckpointActions task={task} number={entry.number} />
    </li>
  );
}

/**
 * All the task's checkpoints, the task's start and restores' own among them: each step's changes,
 * and a way back to any of them. `entries`: the server's list (the task view asks for it once, for
 * this list and the conversation's markers alike).
 */
export function CheckpointTimeline({ task, entries, error }: { task: TaskState; entries: readonly CheckpointEntry[]; error: string | undefined }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="timeline-panel" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Checkpoints ({task.checkpoints.length})</summary>
      {open && error ? <p className="muted">{error}</p> : null}
      {open ? (
        <ol className="steps">
          {entries.map((entry) => (
            <Step key={entry.hash + entry.number} task={task} entry={entry} />
          ))}
        </ol>
      ) : null}
    </details>
  );
}
