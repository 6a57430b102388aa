import { endReplay, foldEvent, initialTranscript, type AgentEvent, type ToolCard, type Transcript, type TranscriptItem } from "@cairn/core/transcript";
import type { WebEvent } from "../../src/web-event.ts";

export type { AgentEvent, ToolCard, TranscriptItem as Item };
export type Mode = Transcript["mode"];
export type ApprovalPreview = NonNullable<ToolCard["preview"]>;

export type StreamEntry = { task_id: string; event: AgentEvent | WebEvent };

/**
 * One task as the page shows it: core's transcript of its events (the same fold every host
 * renders), and what the web host adds: the task's id here, and whether it is at work (a task
 * that handed over is not: its work goes on in the new task).
 */
export type TaskState = Transcript & { id: string; running: boolean };

export function newTask(id: string): TaskState {
  return { ...initialTranscript(), id, running: false };
}

/** The task handed its work over to another (its last item is the hand-off): that task's id. */
export function handedOverTo(task: TaskState): string | undefined {
  const last = task.items.at(-1);
  return last?.kind === "handoff" && last.from_task_id === task.id ? last.task_id : undefined;
}

function withRunning(task: TaskState, transcript: Transcript): TaskState {
  const next = { ...transcript, id: task.id, running: false };
  next.running = (next.status === "running" || next.status === "awaiting") && handedOverTo(next) === undefined;
  return next;
}

/** Applies one event of the server's stream to its task. */
export function applyEntry(tasks: Map<string, TaskState>, entry: StreamEntry): void {
  const task = tasks.get(entry.task_id) ?? newTask(entry.task_id);
  const event = entry.event;
  if (event.type === "web_deleted") return;
  const next = foldEvent(task, event);
  if (next !== task) tasks.set(entry.task_id, withRunning(task, next));
  else if (!tasks.has(entry.task_id)) tasks.set(entry.task_id, task);
}

/** A stored task's record, folded as a live task's is; `interrupted`: no process runs it, so a record that ends mid-run shows so. */
export function storedTask(id: string, events: ReadonlyArray<AgentEvent>, interrupted: boolean): TaskState {
  const task = events.reduce<TaskState>((t, event) => withRunning(t, foldEvent(t, event)), newTask(id));
  return withRunning(task, endReplay(task, { interrupted }));
}

/** One problem an edit introduced, as its language server reported it (the diagnostics event). */
export type CardProblem = { path: string; line: number; column: number; code?: string; message: string };
/** The problems shown under an edit's card: the first few, and how many there were in all. */
export type Problems = { shown: CardProblem[]; count: number };
/** Problems shown per card (the model got up to 20 per file; the card counts the rest). */
export const MAX_CARD_PROBLEMS = 10;

/** The problems a call's edits introduced, across the files its language servers reported on. */
export function problemsOf(card: ToolCard): Problems | undefined {
  const all = card.diagnostics.flatMap((d) => d.problems.map((p) => ({ path: d.path, line: p.line, column: p.column, message: p.message.split("\n", 1)[0]!, ...(p.code === undefined ? {} : { code: p.code }) })));
  return all.length === 0 ? undefined : { shown: all.slice(0, MAX_CARD_PROBLEMS), count: all.length };
}
