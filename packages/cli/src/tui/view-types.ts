import type { ApprovalRequest, Decision, PlanEstimate, PlanReview, ResultSubtype, ToolCallStatus, ToolKind } from "@cairn/core";
import type { Mode } from "@cairn/core";
import type { EditDiff } from "./edit-diff.js";
import type { SettingsScreenSource } from "./settings-screen.js";

/**
 * One tool call as a person sees it. Its status, decision, output and result are copied from
 * core's record of the call (applyToolCallEvent), never worked out from other events.
 */
export type ToolCard = {
  id: string;
  name: string;
  kind: ToolKind | "other";
  summary: string;
  input: Record<string, unknown>;
  status: ToolCallStatus;
  /** Who let it run or refused it, and why; present when an approval was needed or it was denied. */
  decision?: Decision;
  /** For edits: the change as core showed it for approval (its preview). */
  edit?: EditDiff;
  /** Printed in full above the approval prompt, so the finished card need not repeat it. */
  shownForApproval?: boolean;
  /** Commands: the end of the output (bounded) and how many lines there were in all. */
  output: string;
  outputLines: number;
  /** The result the model got (bounded). */
  result?: string;
  /** Edits: the errors they introduced, as the language servers reported them (the diagnostics event), bounded. */
  problems?: CardProblem[];
  /** How many problems there were in all (more than `problems` holds when they were many). */
  problemCount?: number;
};

/** One problem an edit introduced: "src/a.ts:3:7 TS2345 Argument of type ...". */
export type CardProblem = { path: string; line: number; column: number; code?: string; message: string };

/** Finished things, printed once into the terminal's scrollback (ink's <Static>). */
export type HistoryItem = { key: number } & (
  | { kind: "banner"; lines: string[] }
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string; fence?: string }
  | { kind: "reasoning"; text: string; words: number }
  | { kind: "tool"; card: ToolCard }
  | { kind: "proposal"; card: ToolCard }
  | { kind: "notice"; level: "info" | "warning"; text: string }
  | { kind: "error"; text: string }
  | { kind: "question"; question: string; options: string[] }
  | { kind: "result"; subtype: ResultSubtype; text: string; detail: string }
  | { kind: "info"; title: string; lines: string[] }
  | { kind: "patch"; title: string; patch: string }
  | { kind: "released" }
);

export type HistoryInput = HistoryItem extends infer T ? (T extends HistoryItem ? Omit<T, "key"> : never) : never;

/**
 * A run in progress, for its "working 12s" line. The clock stops while the person is being asked
 * something (an approval, a question): that time is theirs, not the task's.
 */
export type Busy = {
  since: number;
  label: string;
  /** Time already spent waiting for the person. */
  pausedMs?: number;
  /** When the current wait for the person began. */
  pausedAt?: number;
};

/** How long the run has been working, waits for the person left out. */
export function busyElapsedMs(busy: Busy, now: number): number {
  const waiting = (busy.pausedMs ?? 0) + (busy.pausedAt === undefined ? 0 : now - busy.pausedAt);
  return Math.max(0, now - busy.since - waiting);
}

/** What is still changing: re-rendered (throttled), height-capped. */
export type LiveState = {
  text: string;
  /** Lines of the current reply already moved to the history (so a discarded stream can say so). */
  committed: boolean;
  /** The opening line of the code block the live text continues (the reply was cut inside it). */
  fence?: string;
  reasoning: string;
  reasoningWords: number;
  tools: ToolCard[];
  /** A tool call still streaming in: its name and size so far. */
  streamingCall?: { id: string; name: string; chars: number; note?: string };
  /** Set while a run (or /compact) is in progress. */
  busy?: Busy;
  stopping: boolean;
};

export type StatusState = {
  mode: Mode;
  /** A mode chosen while a run is in progress: applied when it ends. */
  pendingMode?: Mode;
  provider: string;
  model: string;
  contextTokens: number;
  /** The last request's usage was an estimate (the server reported none): shown as such. */
  contextEstimated?: boolean;
  contextWindow: number;
  costUsd: number | null;
  /** What the task may cost (--max-budget-usd, or agreed with its plan): the cost is shown against it. */
  budgetUsd?: number;
  checkpoints: number;
  taskId?: string;
  yolo: boolean;
};

/** The person's answer to an approval; `remember`: "always allow" the request's suggested rule for this task or this workspace. */
export type ApprovalAnswer = { approved: boolean; feedback?: string; remember?: "task" | "workspace" };

/** A decision the person must make; `resolve` settles the host callback waiting for it. */
export type Prompt =
  | { kind: "approval"; request: ApprovalRequest; resolve: (answer: ApprovalAnswer) => void }
  | { kind: "question"; question: string; options: string[]; resolve: (answer: string | undefined) => void }
  | { kind: "plan"; plan: string; estimate?: PlanEstimate; resolve: (answer: PlanReview) => void }
  | { kind: "confirm"; title: string; detail: string; resolve: (answer: boolean) => void }
  | {
      kind: "choice";
      title: string;
      options: Array<{ label: string; value: string; hint?: string }>;
      /** Typing instead of choosing: the person is writing their own message (the start picker's "New task"). */
      onTyping?: (text: string) => void;
      resolve: (answer: string | undefined) => void;
    }
  | { kind: "handoff"; context: string; resolve: (answer: HandoffAnswer) => void }
  /** /settings: open until Esc; `taskOpen`: a task is open, so what changes waits for the next one. */
  | { kind: "settings"; source: SettingsScreenSource; taskOpen: boolean; resolve: (answer: undefined) => void };

/** The person's answer to a hand-off (new_task): start it (with their addition to its context), or stay and say why. */
export type HandoffAnswer = { start: true; addition?: string } | { start: false; feedback?: string };

export type ViewSnapshot = {
  history: HistoryItem[];
  live: LiveState;
  prompt: Prompt | undefined;
  status: StatusState;
  /** A short transient line above the input ("press Esc again to exit"). */
  hint: string | undefined;
  /** Messages typed while a run is in progress, sent when it ends. */
  queued: string[];
  /** The names of the pictures that go with the next message. */
  attached: string[];
  /** Keys typed while a prompt was up that belong in the input (see SessionView.typeAhead). */
  typedAhead: ReadonlyArray<{ id: number; text: string }>;
  size: { columns: number; rows: number };
  expanded: boolean;
  /** The session is ending: the live part and the input are no longer drawn. */
  closing: boolean;
};
