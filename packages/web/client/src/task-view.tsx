import { useState } from "react";
import { api } from "./api.ts";
import { checkpointNumbers, isStepMarker, useCheckpointList } from "./checkpoint-actions.tsx";
import { CheckpointMarker } from "./checkpoint-marker.tsx";
import { CheckpointTimeline } from "./checkpoint-timeline.tsx";
import { FocusChain } from "./focus-chain.tsx";
import { StatusBar } from "./status-bar.tsx";
import type { Mode, TaskState } from "./task-state.ts";
import { TaskInput } from "./task-input.tsx";
import { ItemView, resultText } from "./timeline-item.tsx";

const waiting = { plan: "A plan waits for your approval", continue: "The task asks whether to go on", handoff: "The model wants to hand over to a new task" };

function announcement(task: TaskState): string {
  const awaiting = task.awaiting;
  if (awaiting?.kind === "approval") return `Needs your approval: ${awaiting.text}`;
  if (awaiting?.kind === "question") return `Question: ${awaiting.text}`;
  if (awaiting) return waiting[awaiting.kind];
  const last = task.items.at(-1);
  if (!task.running && last?.kind === "result") return resultText[last.subtype] ?? last.subtype;
  if (task.status === "interrupted") return "Interrupted";
  return task.running ? "Working" : "";
}

function ModeSwitch({ task }: { task: TaskState }) {
  const [error, setError] = useState<string>();
  const pick = async (mode: Mode) => {
    const done = await api.mode(task.id, mode);
    setError(done.ok ? undefined : done.error);
  };
  return (
    <fieldset className="mode-switch" disabled={task.running}>
      <legend>Mode</legend>
      {(["act", "plan"] as const).map((mode) => (
        <label key={mode}>
          <input type="radio" name={`mode-${task.id}`} checked={task.mode === mode} onChange={() => void pick(mode)} /> {mode === "act" ? "Act" : "Plan"}
        </label>
      ))}
      {error ? (
        <span role="alert" className="error">
          {error}
        </span>
      ) : null}
    </fieldset>
  );
}

/** One task: its conversation and tool calls as they stream, its status, and the box to carry it on. */
export function TaskView({ task, onOpenTask }: { task: TaskState; onOpenTask(id: string): void }) {
  const title = task.title || task.id;
  const checkpoints = useCheckpointList(task, task.checkpoints.length > 0);
  const numbers = checkpointNumbers(task.items, checkpoints.entries);
  return (
    <section className="task-view" aria-label={`Task: ${title}`}>
      <header className="task-header">
        <h2>{title}</h2>
        <span className="muted">
          {task.status === "interrupted" ? "interrupted · " : ""}
          {task.cwd}
        </span>
        <ModeSwitch task={task} />
        {task.running ? (
          <button type="button" className="stop" onClick={() => void api.stop(task.id)}>
            Stop
          </button>
        ) : null}
      </header>
      {/* What a screen reader announces: the moments that need the person, not every streamed word. */}
      <p className="visually-hidden" aria-live="polite">
        {announcement(task)}
      </p>
      <div className="timeline">
        {task.items.map((item) =>
          item.kind !== "checkpoint" ? (
            <ItemView key={item.key} item={item} task={task} onOpenTask={onOpenTask} />
          ) : isStepMarker(item) ? (
            <CheckpointMarker key={item.key} task={task} item={item} number={numbers.get(item.key)} />
          ) : null,
        )}
        {task.running ? (
          <p className="working" role="status">
            Working…
          </p>
        ) : null}
      </div>
      <FocusChain task={task} />
      <TaskInput
        label="Task message"
        taskId={task.id}
        placeholder={task.running ? "The task is working; send when it is done" : "Reply, or give the next step"}
        busy={task.running}
        onSend={async (text, images) => {
          const sent = await api.send(task.id, text, images);
          return sent.ok ? undefined : sent.error;
        }}
      />
      <CheckpointTimeline task={task} entries={checkpoints.entries} error={checkpoints.error} />
      <StatusBar task={task} />
    </section>
  );
}
