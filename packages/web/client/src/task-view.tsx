import { useState } from "react";
import { api } from "./api.ts";
import { CheckpointTimeline } from "./checkpoint-timeline.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { Markdown } from "./markdown.tsx";
import { StatusBar } from "./status-bar.tsx";
import type { Item, TaskState } from "./task-state.ts";
import { TaskInput } from "./task-input.tsx";
import { ToolCard } from "./tool-card.tsx";
import type { Mode } from "./tool-calls.ts";

const resultText: Record<string, string> = {
  success: "Task completed.",
  needs_input: "The task waits for your answer.",
  error_aborted: "Stopped.",
  error_max_turns: "Stopped: the turn limit was reached.",
  error_max_budget_usd: "Stopped: the budget was reached.",
  error_mistake_limit: "Stopped: too many mistakes in a row.",
  error_loop_detected: "Stopped: the task was repeating itself.",
  error_during_execution: "The task failed.",
};

function QuestionItem({ item, task }: { item: Extract<Item, { kind: "question" }>; task: TaskState }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string>();
  const open = item.answer === undefined && task.waitingQuestion === item.question;
  const answer = async (value: string) => {
    const sent = await api.answer(task.id, value);
    setError(sent.ok ? undefined : sent.error);
  };
  return (
    <section className="question" aria-label="Question">
      <p>
        <strong>{item.question}</strong>
      </p>
      {item.answer !== undefined ? <p className="muted">You answered: {item.answer}</p> : null}
      {open ? (
        <>
          <div className="choices">
            {item.options.map((option) => (
              <button type="button" key={option} onClick={() => void answer(option)}>
                {option}
              </button>
            ))}
          </div>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (text.trim()) void answer(text.trim());
            }}
          >
            <label>
              Your answer <input value={text} onChange={(e) => setText(e.target.value)} />
            </label>
            <button type="submit">Answer</button>
          </form>
        </>
      ) : null}
      <ErrorAlert message={error} />
    </section>
  );
}

function PromptItem({ item, task }: { item: Extract<Item, { kind: "prompt" }>; task: TaskState }) {
  const [feedback, setFeedback] = useState("");
  const [error, setError] = useState<string>();
  const answer = async (approved: boolean, withFeedback?: string) => {
    const sent = await api.prompt(task.id, approved, withFeedback);
    setError(sent.ok ? undefined : sent.error);
  };
  const plan = item.prompt === "plan";
  return (
    <section className="question" aria-label={plan ? "Plan" : "Go on?"}>
      {plan ? <h3>Plan</h3> : null}
      {plan ? (
        <div className="plan-text">
          <Markdown text={item.text} />
        </div>
      ) : (
        <div>{item.text}</div>
      )}
      {item.answer ? (
        <p className="muted">{item.answer.approved ? (plan ? "Plan approved: switching to Act." : "Going on.") : item.answer.feedback ? `Feedback: ${item.answer.feedback}` : "Stopped."}</p>
      ) : (
        <>
          <div className="choices">
            <button type="button" className="approve" onClick={() => void answer(true)}>
              {plan ? "Approve plan" : "Keep going"}
            </button>
            {plan ? null : (
              <button type="button" className="deny" onClick={() => void answer(false)}>
                Stop
              </button>
            )}
          </div>
          {plan ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if (feedback.trim()) void answer(false, feedback.trim());
              }}
            >
              <label>
                Change the plan <input value={feedback} onChange={(e) => setFeedback(e.target.value)} />
              </label>
              <button type="submit">Send feedback</button>
            </form>
          ) : null}
        </>
      )}
      <ErrorAlert message={error} />
    </section>
  );
}

export function ItemView({ item, task }: { item: Item; task: TaskState }) {
  switch (item.kind) {
    case "user":
      return (
        <div className="msg user">
          {item.text}
          {item.images ? <span className="muted attached-count">{` (${item.images} image${item.images === 1 ? "" : "s"} attached)`}</span> : null}
        </div>
      );
    case "assistant":
      return (
        <div className="msg assistant" aria-busy={!item.done}>
          {item.reasoning ? (
            <details className="reasoning">
              <summary>Reasoning</summary>
              <p>{item.reasoning}</p>
            </details>
          ) : null}
          {item.text ? (
            <div className="assistant-text">
              <Markdown text={item.text} />
            </div>
          ) : null}
        </div>
      );
    case "tool": {
      const record = task.tools.get(item.tool_use_id);
      if (!record) return null;
      return (
        <ToolCard
          record={record}
          problems={item.problems}
          onAnswer={async (approved, feedback, remember) => {
            const sent = await api.approve(task.id, record.tool_use_id, approved, feedback, remember);
            return sent.ok ? undefined : sent.error;
          }}
        />
      );
    }
    case "question":
      return <QuestionItem item={item} task={task} />;
    case "prompt":
      return <PromptItem item={item} task={task} />;
    case "notice":
      return <p className={`notice ${item.level}`}>{item.text}</p>;
    case "result":
      return (
        <div className={`result ${item.is_error ? "error" : ""}`} role="status">
          {resultText[item.subtype] ?? item.subtype}
          {item.text && item.subtype !== "needs_input" ? (
            <div className="result-text">
              <Markdown text={item.text} />
            </div>
          ) : null}
          {item.plan ? (
            <div className="plan-text">
              <Markdown text={item.plan} />
            </div>
          ) : null}
        </div>
      );
  }
}

function announcement(task: TaskState): string {
  const waiting = [...task.tools.values()].find((t) => t.status === "awaiting_approval");
  if (waiting) return `Needs your approval: ${waiting.approval?.summary ?? waiting.summary}`;
  if (task.waitingQuestion) return `Question: ${task.waitingQuestion}`;
  const last = task.items.at(-1);
  if (!task.running && last?.kind === "result") return resultText[last.subtype] ?? last.subtype;
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
export function TaskView({ task }: { task: TaskState }) {
  return (
    <section className="task-view" aria-label={`Task: ${task.title}`}>
      <header className="task-header">
        <h2>{task.title}</h2>
        <span className="muted">{task.cwd}</span>
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
        {task.items.map((item) => (
          <ItemView key={item.key} item={item} task={task} />
        ))}
        {task.running ? (
          <p className="working" role="status">
            Working…
          </p>
        ) : null}
      </div>
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
      <CheckpointTimeline task={task} />
      <StatusBar task={task} />
    </section>
  );
}
