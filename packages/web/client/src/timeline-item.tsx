import { useState } from "react";
import { describeEstimate, type NoticeEvent } from "@cairn/core/transcript";
import { api } from "./api.ts";
import { ErrorAlert } from "./error-alert.tsx";
import { Markdown } from "./markdown.tsx";
import type { Item, TaskState } from "./task-state.ts";
import { ToolCard } from "./tool-card.tsx";

export const resultText: Record<string, string> = {
  success: "Task completed.",
  needs_input: "The task waits for your answer.",
  error_aborted: "Stopped.",
  error_max_turns: "Stopped: the turn limit was reached.",
  error_max_budget_usd: "Stopped: the budget was reached.",
  error_mistake_limit: "Stopped: too many mistakes in a row.",
  error_loop_detected: "Stopped: the task was repeating itself.",
  error_during_execution: "The task failed.",
};

type Props = { item: Item; task: TaskState; onOpenTask?: ((id: string) => void) | undefined };

function QuestionItem({ item, task }: { item: Extract<Item, { kind: "question" }>; task: TaskState }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string>();
  const open = item.answer === undefined && task.awaiting?.kind === "question" && task.awaiting.tool_use_id === item.tool_use_id;
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

const waitText = {
  plan: { label: "Plan", approve: "Approve plan", approved: "Plan approved: switching to Act.", input: "Change the plan", decline: "Send feedback" },
  continue: { label: "Go on?", approve: "Keep going", approved: "Going on.", input: "", decline: "Stop" },
  handoff: { label: "Hand-off", approve: "Start the new task", approved: "Starting the new task.", input: "Keep working here", decline: "Stay here" },
} as const;

/** A plan to approve, whether to go on, or a hand-off to a new task: the person's yes, or their no with what to do instead. */
function AwaitingItem({ item, task }: { item: Extract<Item, { kind: "awaiting" }>; task: TaskState }) {
  const [feedback, setFeedback] = useState("");
  const [error, setError] = useState<string>();
  const words = waitText[item.awaiting];
  const open = item.answer === undefined && task.awaiting?.kind === item.awaiting;
  // A plan's estimate: it may be approved with the budget that stops its Act phase at the high end.
  const budget = item.estimate?.budget_usd ?? undefined;
  const answer = async (approved: boolean, withFeedback?: string, budgetUsd?: number) => {
    const sent = await api.prompt(task.id, approved, withFeedback, budgetUsd);
    setError(sent.ok ? undefined : sent.error);
  };
  const declined = item.awaiting === "handoff" ? `Stayed in this task${item.answer?.text ? `: ${item.answer.text}` : "."}` : item.answer?.text ? `Feedback: ${item.answer.text}` : "Stopped.";
  return (
    <section className="question" aria-label={words.label}>
      {item.awaiting === "plan" ? <h3>Plan</h3> : null}
      {item.awaiting === "handoff" ? <h3>The model wants to hand over to a new task, which would start from:</h3> : null}
      {item.awaiting === "continue" ? (
        <div>{item.text}</div>
      ) : (
        <div className="plan-text">
          <Markdown text={item.text} />
        </div>
      )}
      {item.estimate ? (
        <p className="muted" title={item.estimate.method}>
          {describeEstimate(item.estimate)}
        </p>
      ) : null}
      {item.answer ? <p className="muted">{item.answer.approved ? `${words.approved}${item.answer.budget_usd !== undefined ? ` Budget: $${item.answer.budget_usd.toFixed(2)}.` : ""}` : declined}</p> : null}
      {open ? (
        <>
          <div className="choices">
            <button type="button" className="approve" onClick={() => void answer(true)}>
              {words.approve}
            </button>
            {budget !== undefined ? (
              <button type="button" className="approve" onClick={() => void answer(true, undefined, budget)}>
                Approve with budget ${budget.toFixed(2)}
              </button>
            ) : null}
            {item.awaiting === "continue" ? (
              <button type="button" className="deny" onClick={() => void answer(false)}>
                {words.decline}
              </button>
            ) : null}
          </div>
          {item.awaiting === "continue" ? null : (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                // A plan needs feedback to change; staying here needs none.
                if (feedback.trim() || item.awaiting === "handoff") void answer(false, feedback.trim() || undefined);
              }}
            >
              <label>
                {words.input} <input value={feedback} onChange={(e) => setFeedback(e.target.value)} />
              </label>
              <button type="submit">{words.decline}</button>
            </form>
          )}
        </>
      ) : null}
      <ErrorAlert message={error} />
    </section>
  );
}

function HandoffItem({ item, task, onOpenTask }: { item: Extract<Item, { kind: "handoff" }>; task: TaskState; onOpenTask?: ((id: string) => void) | undefined }) {
  const onward = item.from_task_id === task.id;
  return (
    <section className="handoff" aria-label="Hand-off">
      <p>
        <strong>{onward ? "Handed over to a new task, which starts from:" : "Handed over from an earlier task. This task starts from:"}</strong>
      </p>
      <div className="plan-text">
        <Markdown text={item.context} />
      </div>
      {onOpenTask ? (
        <button type="button" onClick={() => onOpenTask(onward ? item.task_id : item.from_task_id)}>
          {onward ? "Open the new task" : "Open the earlier task"}
        </button>
      ) : null}
    </section>
  );
}

const modeText = { plan: "Plan mode: the task explores and plans, and changes nothing.", act: "Act mode: the task can change files and run commands." };

function noticeOf(event: NoticeEvent): { level: "info" | "warning" | "error"; text: string } {
  if (event.type === "error") return { level: "error", text: event.message };
  switch (event.subtype) {
    case "notice":
      return { level: event.level, text: event.message };
    case "mode":
      return { level: "info", text: modeText[event.mode] };
    case "api_retry":
      return { level: "warning", text: `The model's server failed (${event.error}); trying again (${event.attempt} of ${event.max_retries}).` };
    case "fallback_model":
      return { level: "warning", text: `${event.from_model} failed (${event.error}); going on with ${event.to_model}.` };
    case "compact_boundary":
      return { level: "info", text: `The conversation was shrunk to fit the context window (${event.compact_metadata.pre_tokens} to ${event.compact_metadata.post_tokens} tokens).` };
  }
}

const restoredText = { files: "the files", conversation: "the conversation", both: "the files and the conversation" };

export function ItemView({ item, task, onOpenTask }: Props) {
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
    case "tool":
      return (
        <ToolCard
          record={item.card}
          onAnswer={async (approved, feedback, remember) => {
            const sent = await api.approve(task.id, item.card.tool_use_id, approved, feedback, remember);
            return sent.ok ? undefined : sent.error;
          }}
        />
      );
    case "question":
      return <QuestionItem item={item} task={task} />;
    case "awaiting":
      return <AwaitingItem item={item} task={task} />;
    case "handoff":
      return <HandoffItem item={item} task={task} onOpenTask={onOpenTask} />;
    case "restored": {
      const label = task.checkpoints.find((c) => c.hash === item.hash)?.label;
      const numbered = item.checkpoint === undefined ? undefined : `checkpoint ${item.checkpoint}`;
      const name = label ? `${numbered ?? "the checkpoint"} “${label}”` : (numbered ?? `the checkpoint ${item.hash.slice(0, 8)}`);
      return <p className="notice info">{`Went back to ${name}: ${restoredText[item.what]} restored.`}</p>;
    }
    case "notice": {
      const notice = noticeOf(item.event);
      return <p className={`notice ${notice.level}`}>{notice.text}</p>;
    }
    case "result": {
      const { event } = item;
      return (
        <div className={`result ${event.is_error ? "error" : ""}`} role="status">
          {resultText[item.subtype] ?? item.subtype}
          {event.result && item.subtype !== "needs_input" ? (
            <div className="result-text">
              <Markdown text={event.result} />
            </div>
          ) : null}
          {event.plan ? (
            <div className="plan-text">
              <Markdown text={event.plan} />
            </div>
          ) : null}
        </div>
      );
    }
  }
}
