import { CheckpointActions } from "./checkpoint-actions.tsx";
import "./checkpoint-marker.css";
import type { Item, TaskState } from "./task-state.ts";

type Props = { task: TaskState; item: Extract<Item, { kind: "checkpoint" }>; number: number | undefined };

/**
 * A checkpoint where it was made in the conversation, after the step whose changes it holds:
 * compare them, or go back to it. Without its number (the server does not have the task open)
 * it only says what the step changed.
 */
export function CheckpointMarker({ task, item, number }: Props) {
  const files = `${item.changed_files} file${item.changed_files === 1 ? "" : "s"} changed`;
  const name = number === undefined ? "Checkpoint" : `Checkpoint ${number}`;
  return (
    <section className="checkpoint-marker" aria-label={name}>
      <div className="checkpoint-head">
        <span className="step-number">{name}</span>
        <span className="muted">{` · ${item.label} · ${files}`}</span>
      </div>
      {number === undefined ? null : <CheckpointActions task={task} number={number} />}
    </section>
  );
}
