import type { AgentEvent, AssistantContentJson, ResultSubtype, UsageJson } from "../events/agent-event.js";
import type { ToolCallRecord } from "../events/tool-call-record.js";
import type { PlanEstimate } from "../events/plan-estimate.js";

/** The task's mode as events carry it (act or plan). */
export type TranscriptMode = Extract<AgentEvent, { type: "session_opened" }>["mode"];

/**
 * Where the task stands, as a person would say it. `interrupted`: a stored task whose process died
 * mid-run (its record ends with no result); `stopped`: the person stopped it.
 */
export type TranscriptStatus = "idle" | "running" | "awaiting" | "done" | "needs_input" | "stopped" | "failed" | "interrupted";

/** One tool call's card: core's record of its life, keyed by tool_use_id (one card per id). */
export type ToolCard = ToolCallRecord;

/** The model's checklist of the task (the focus chain). */
export type ChecklistItem = { text: string; done: boolean };

export type TranscriptUsage = {
  /** Tokens sent (input, cache reads and writes) and received over the task's requests. */
  input_tokens: number;
  output_tokens: number;
  /** Tokens the last request sent (after a compaction: what is left): how full the context window is. */
  context_tokens: number;
  /** The counts are Cairn's estimate (the server reported none). */
  estimated: boolean;
  /** The task's cost so far; null when the price of its model is unknown. */
  cost_usd: number | null;
  /** What the task may cost (--max-budget-usd, or agreed with its plan), when it has a budget: hosts show cost_usd against it. */
  budget_usd?: number;
};

export type TranscriptCheckpoint = { hash: string; message_index: number; label: string; changed_files: number };

/** A host's notice that is not part of the conversation: retries, mode changes, compaction, warnings, errors. */
export type NoticeEvent = Exclude<Extract<AgentEvent, { type: "system" }>, { subtype: "init" }> | Extract<AgentEvent, { type: "error" }>;

export type ResultEvent = Extract<AgentEvent, { type: "result" }>;

/** What the task waits for the person to do. */
export type Awaiting =
  | { kind: "approval"; tool_use_id: string; text: string }
  | { kind: "question"; tool_use_id: string; text: string; options: string[] }
  | { kind: "plan" | "continue" | "handoff"; text: string; tool_use_id?: string; estimate?: PlanEstimate };

/**
 * One model response, keyed by its message_id across attempts and continuations. `text` and
 * `reasoning` grow with the deltas; once `done` (the complete assistant event) they are the
 * message's own: its prose (tool call blocks cut out) and its thinking.
 */
export type AssistantItem = {
  kind: "assistant";
  key: string;
  message_id: string;
  text: string;
  reasoning: string;
  done: boolean;
  /** Reasons of each retry that threw away what the message had streamed since its last message_start. */
  discarded: readonly string[];
  /** Where text and reasoning stood at the last message_start: a discard cuts back to here. */
  start: { text: number; reasoning: number };
  /** Once done: the model that answered, why it stopped, and the message's parts as the event carried them. */
  model?: string;
  stop_reason?: string;
  content?: readonly AssistantContentJson[];
  usage?: UsageJson;
};

export type TranscriptItem =
  | { kind: "user"; key: string; text: string; images?: number }
  | AssistantItem
  | { kind: "tool"; key: string; card: ToolCard }
  /** ask_followup_question's question; `answer` once the person gave it here. */
  | { kind: "question"; key: string; tool_use_id: string; question: string; options: readonly string[]; answer?: string }
  /** A plan to approve, whether to go on, or a hand-off to confirm; `answer` once the person answered. */
  | { kind: "awaiting"; key: string; awaiting: "plan" | "continue" | "handoff"; text: string; tool_use_id?: string; estimate?: PlanEstimate; answer?: { approved?: boolean; text?: string; budget_usd?: number } }
  | { kind: "notice"; key: string; event: NoticeEvent }
  /** The work went on in a fresh task; the items after this one are that task's. */
  | { kind: "handoff"; key: string; from_task_id: string; task_id: string; context: string }
  /** A checkpoint of the workspace, where it was made (after the step whose changes it holds). */
  | ({ kind: "checkpoint"; key: string } & TranscriptCheckpoint)
  | { kind: "restored"; key: string; hash: string; message_index: number; what: "files" | "conversation" | "both"; checkpoint?: number }
  | { kind: "result"; key: string; subtype: ResultSubtype; event: ResultEvent };

/** A tool call still streaming (its arguments arriving), before its tool_call event makes it a card. */
export type StreamingCall = {
  id: string;
  name: string;
  /** Characters of its arguments so far. */
  chars: number;
  /** replace_in_file's edit applied in memory so far (the edit_preview event). */
  edit?: Omit<Extract<AgentEvent, { type: "edit_preview" }>, "type" | "tool_use_id">;
};

/**
 * A task as a person sees it, folded from its events (foldEvent). Immutable: each event gives a
 * new object sharing every part it did not change, so a view can compare parts by identity.
 */
export type Transcript = {
  /** The task the events now belong to (after a hand-off, the new one); undefined until known. */
  task_id: string | undefined;
  title: string;
  cwd: string;
  model: string;
  provider: string;
  /** The model's context window in tokens (session_opened), null when unknown. */
  context_window: number | null;
  mode: TranscriptMode;
  /** The task's setup as its last run started (tools, sandbox, protocol, permission mode). */
  init?: Extract<AgentEvent, { type: "system"; subtype: "init" }>;
  items: readonly TranscriptItem[];
  /** A tool call whose arguments are streaming. */
  streaming?: StreamingCall;
  checklist: readonly ChecklistItem[];
  usage: TranscriptUsage;
  checkpoints: readonly TranscriptCheckpoint[];
  status: TranscriptStatus;
  /** What the task waits for, while status is "awaiting". */
  awaiting?: Awaiting;
  /** The last run's result. */
  result?: ResultEvent;
  /** Bumped at each hand-off: items' keys carry it, so a new task's ids never meet the last one's. */
  segment: number;
  /** Where the current turn's items begin: a message with no streamed start is placed here, before its cards. */
  turnStart: number;
  /** The turn in progress (turn_start's number): a step's checkpoint that comes after the next turn began goes before it. */
  turn: number;
  /** Counter for keys of items that have no id of their own. */
  seq: number;
};
