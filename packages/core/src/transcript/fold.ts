import type { AgentEvent } from "../events/agent-event.js";
import { foldToolCall, toolCallIdOf } from "../events/tool-call-record.js";
import { messageProse, messageReasoning } from "./prose.js";
import type { AssistantItem, ResultEvent, ToolCard, Transcript, TranscriptCheckpoint, TranscriptItem, TranscriptStatus, TranscriptUsage } from "./types.js";

const noUsage: TranscriptUsage = { input_tokens: 0, output_tokens: 0, context_tokens: 0, estimated: false, cost_usd: null };

/** A transcript before any event: no task yet, nothing said. */
export function initialTranscript(): Transcript {
  return { task_id: undefined, title: "", cwd: "", model: "", provider: "", context_window: null, mode: "act", items: [], checklist: [], usage: noUsage, checkpoints: [], status: "idle", segment: 0, turnStart: 0, turn: 0, seq: 0 };
}

const messageKey = (t: Transcript, id: string) => `m${t.segment}:${id}`;
const cardKey = (t: Transcript, id: string) => `t${t.segment}:${id}`;

/** Where the item with this key is (searched from the end, where events land), or -1. */
function indexOf(items: readonly TranscriptItem[], key: string): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]!.key === key) return i;
  return -1;
}

function replaced(items: readonly TranscriptItem[], index: number, item: TranscriptItem): TranscriptItem[] {
  const next = items.slice();
  next[index] = item;
  return next;
}

/**
 * Where the card of a call of the current task is (the last one under its id), or -1. Ids are
 * unique in a task since Cairn mints them; a task stored before that may reuse a provider's
 * `call_0`, and each of its calls still gets a card of its own (see foldCard).
 */
function cardIndex(t: Transcript, id: string): number {
  const prefix = cardKey(t, "");
  for (let i = t.items.length - 1; i >= 0; i--) {
    const item = t.items[i]!;
    if (item.kind === "tool" && item.card.tool_use_id === id && item.key.startsWith(prefix)) return i;
  }
  return -1;
}

/** The card of a call of the current task (after a hand-off, the new task's), or undefined. */
export function cardOf(t: Transcript, tool_use_id: string): ToolCard | undefined {
  const item = t.items[cardIndex(t, tool_use_id)];
  return item?.kind === "tool" ? item.card : undefined;
}

/** Adds an item that has no id of its own. */
function added(t: Transcript, item: DistributiveOmit<TranscriptItem, "key">): Transcript {
  return { ...t, items: [...t.items, { ...item, key: `n${t.seq}` } as TranscriptItem], seq: t.seq + 1 };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The task is at work again (after a wait, or from the start). */
function running(t: Transcript): Transcript {
  if (t.status === "running" && t.awaiting === undefined) return t;
  const { awaiting: _awaiting, ...rest } = t;
  return { ...rest, status: "running" };
}

function resultStatus(result: ResultEvent): TranscriptStatus {
  if (result.subtype === "success") return "done";
  if (result.subtype === "needs_input") return "needs_input";
  if (result.subtype === "error_aborted") return "stopped";
  return "failed";
}

/** A message's item, made where it starts (or, for a message seen only complete, where its turn began: before its cards). */
function withMessage(t: Transcript, id: string, change: (item: AssistantItem) => AssistantItem): Transcript {
  const key = messageKey(t, id);
  const index = indexOf(t.items, key);
  if (index !== -1) {
    const item = t.items[index] as AssistantItem;
    const next = change(item);
    return next === item ? t : { ...t, items: replaced(t.items, index, next) };
  }
  const fresh: AssistantItem = { kind: "assistant", key, message_id: id, text: "", reasoning: "", done: false, discarded: [], start: { text: 0, reasoning: 0 } };
  const at = Math.min(t.turnStart, t.items.length);
  return { ...t, items: [...t.items.slice(0, at), change(fresh), ...t.items.slice(at)] };
}

/**
 * Names of the calls a message wrote in its text, in order: the cards made since its item (or,
 * for a message seen only complete, since its turn began), less those it carries as parts of
 * their own (native calls).
 */
function textCalls(t: Transcript, message: Extract<AgentEvent, { type: "assistant" }>["message"]): string[] {
  const index = indexOf(t.items, messageKey(t, message.id));
  const names = t.items.slice(index === -1 ? t.turnStart : index + 1).flatMap((item) => (item.kind === "tool" ? [item.card.name] : []));
  for (const part of message.content) {
    if (part.type !== "tool_use") continue;
    const at = names.indexOf(part.name);
    if (at !== -1) names.splice(at, 1);
  }
  return names;
}

function foldCard(t: Transcript, event: AgentEvent, id: string): Transcript {
  const found = cardIndex(t, id);
  // A new call is a new card, even under an id a call before it had (a stored task's reused provider id).
  const index = event.type === "tool_call" ? -1 : found;
  const before = index === -1 ? undefined : (t.items[index] as Extract<TranscriptItem, { kind: "tool" }>);
  const card = foldToolCall(before?.card, event);
  if (!card || card === before?.card) return t;
  const item: TranscriptItem = before ? { ...before, card } : { kind: "tool", key: found === -1 ? cardKey(t, id) : `${cardKey(t, id)}#${t.seq}`, card };
  let next: Transcript = { ...t, items: index === -1 ? [...t.items, item] : replaced(t.items, index, item), ...(found !== -1 && index === -1 ? { seq: t.seq + 1 } : {}) };
  if (event.type === "tool_call") {
    if (next.streaming) {
      const { streaming: _streaming, ...rest } = next;
      next = rest;
    }
    return running(next);
  }
  if (event.type !== "tool_call_update") return next;
  if (event.status === "awaiting_approval") return { ...next, status: "awaiting", awaiting: { kind: "approval", tool_use_id: id, text: event.approval.summary } };
  // The approval is answered (or the call is past asking): the task is at work again.
  if (next.awaiting?.kind === "approval" && next.awaiting.tool_use_id === id) return running(next);
  return next;
}

function addUsage(u: TranscriptUsage, event: Extract<AgentEvent, { type: "usage" }>): TranscriptUsage {
  const sent = event.usage.input_tokens + event.usage.cache_read_input_tokens + event.usage.cache_creation_input_tokens;
  return {
    input_tokens: u.input_tokens + sent,
    output_tokens: u.output_tokens + event.usage.output_tokens,
    // What the next request carries: the last one and the reply to it (as Cline and Claude Code count).
    context_tokens: sent + event.usage.output_tokens,
    estimated: event.usage.estimated === true,
    cost_usd: event.total_cost_usd ?? u.cost_usd,
    ...(event.budget_usd !== undefined ? { budget_usd: event.budget_usd } : u.budget_usd !== undefined ? { budget_usd: u.budget_usd } : {}),
  };
}

/**
 * The transcript after one more event. Pure: `t` is left as it was, and what the event does not
 * change is shared with the result (a view compares items, cards and the checklist by identity).
 * An event that changes nothing gives `t` itself.
 */
export function foldEvent(t: Transcript, event: AgentEvent): Transcript {
  const callId = toolCallIdOf(event);
  if (callId !== undefined) return foldCard(t, event, callId);
  switch (event.type) {
    case "session_opened": {
      const opened: Transcript = { ...t, task_id: event.task_id, title: event.title, cwd: event.cwd, model: event.model, provider: event.provider, context_window: event.context_window ?? null, mode: event.mode };
      if (!event.resumed?.interrupted) return opened;
      const { awaiting: _awaiting, ...rest } = opened;
      return { ...rest, status: "interrupted" };
    }
    case "system":
      if (event.subtype === "init") return running({ ...t, init: event, task_id: t.task_id ?? event.session_id, model: event.model, provider: event.provider, mode: event.mode, cwd: event.cwd });
      if (event.subtype === "mode") return added({ ...t, mode: event.mode }, { kind: "notice", event });
      if (event.subtype === "fallback_model") return added({ ...t, model: event.to_model }, { kind: "notice", event });
      if (event.subtype === "compact_boundary") return added({ ...t, usage: { ...t.usage, context_tokens: event.compact_metadata.post_tokens, estimated: false } }, { kind: "notice", event });
      return added(t, { kind: "notice", event });
    case "error":
      return added(t, { kind: "notice", event });
    case "turn_start":
      return running({ ...t, turnStart: t.items.length, turn: event.turn });
    case "user_message": {
      const next = added(t, { kind: "user", text: event.text, ...(event.images ? { images: event.images } : {}) });
      return running({ ...next, turnStart: next.items.length });
    }
    case "message_start":
      return running(withMessage(t, event.message_id, (m) => ({ ...m, start: { text: m.text.length, reasoning: m.reasoning.length } })));
    case "text_delta":
      if (event.text === "") return t;
      return running(withMessage(t, event.message_id, (m) => ({ ...m, text: m.text + event.text })));
    case "reasoning_delta":
      if (event.text === "") return t;
      return running(withMessage(t, event.message_id, (m) => ({ ...m, reasoning: m.reasoning + event.text })));
    case "stream_discarded":
      return withMessage(t, event.message_id, (m) => ({ ...m, text: m.text.slice(0, m.start.text), reasoning: m.reasoning.slice(0, m.start.reasoning), discarded: [...m.discarded, event.reason] }));
    case "assistant": {
      const { message } = event;
      const called = textCalls(t, message);
      return withMessage(t, message.id, (m) => ({
        ...m,
        text: messageProse(message.content, called),
        reasoning: messageReasoning(message.content),
        done: true,
        model: message.model,
        stop_reason: message.stop_reason,
        content: message.content,
        usage: message.usage,
      }));
    }
    case "tool_call_delta": {
      const same = t.streaming?.id === event.id ? t.streaming : undefined;
      return { ...t, streaming: { ...same, id: event.id, name: event.name, chars: (same?.chars ?? 0) + event.text.length } };
    }
    case "edit_preview": {
      const same = t.streaming?.id === event.tool_use_id ? t.streaming : undefined;
      const { type: _type, tool_use_id: _id, ...edit } = event;
      return { ...t, streaming: { id: event.tool_use_id, name: same?.name ?? "replace_in_file", chars: same?.chars ?? 0, edit } };
    }
    case "question": {
      const next = added(t, { kind: "question", tool_use_id: event.tool_use_id, question: event.question, options: event.options });
      return { ...next, status: "awaiting", awaiting: { kind: "question", tool_use_id: event.tool_use_id, text: event.question, options: event.options } };
    }
    case "awaiting": {
      const extra = { ...(event.tool_use_id ? { tool_use_id: event.tool_use_id } : {}), ...(event.estimate ? { estimate: event.estimate } : {}) };
      const next = added(t, { kind: "awaiting", awaiting: event.kind, text: event.text, ...extra });
      return { ...next, status: "awaiting", awaiting: { kind: event.kind, text: event.text, ...extra } };
    }
    case "answered": {
      // A plan approved with a budget: the spend is shown against it from now on.
      const next = running(answered(t, event));
      return event.budget_usd === undefined ? next : { ...next, usage: { ...next.usage, budget_usd: event.budget_usd } };
    }
    case "task_progress":
      return { ...t, checklist: event.items };
    case "usage":
      return { ...t, usage: addUsage(t.usage, event) };
    case "checkpoint": {
      const { type: _type, ...checkpoint } = event;
      const next = added(t, { kind: "checkpoint", ...checkpoint });
      // A step's checkpoint is made while the next turn starts: it goes after its step, before that turn's items.
      const step = /^turn (\d+): /.exec(checkpoint.label);
      const items = step && Number(step[1]) < t.turn ? [...t.items.slice(0, t.turnStart), next.items.at(-1)!, ...t.items.slice(t.turnStart)] : next.items;
      return { ...next, items, checkpoints: [...t.checkpoints, checkpoint], turnStart: items === next.items ? t.turnStart : t.turnStart + 1 };
    }
    case "restored":
      return added(t, { kind: "restored", hash: event.hash, message_index: event.message_index, what: event.what, ...(event.checkpoint !== undefined ? { checkpoint: event.checkpoint } : {}) });
    case "handoff": {
      // The events that follow are the new task's: its own ids, checklist, checkpoints and spend.
      const next = added(t, { kind: "handoff", from_task_id: event.from_task_id, task_id: event.task_id, context: event.context });
      const { result: _result, awaiting: _awaiting, streaming: _streaming, ...rest } = next;
      return { ...rest, task_id: event.task_id, segment: t.segment + 1, turnStart: next.items.length, checklist: [], checkpoints: [], usage: noUsage, status: "running" };
    }
    case "result": {
      const next = added(t, { kind: "result", subtype: event.subtype, event });
      const { awaiting, streaming: _streaming, ...rest } = next;
      const status = resultStatus(event);
      return {
        ...rest,
        status,
        result: event,
        ...(status === "needs_input" && awaiting ? { awaiting } : {}),
        usage: event.total_cost_usd === null ? t.usage : { ...t.usage, cost_usd: event.total_cost_usd },
      };
    }
    default:
      return t;
  }
}

/** The answer lands on the last unanswered question or wait of its kind. */
function answered(t: Transcript, event: Extract<AgentEvent, { type: "answered" }>): Transcript {
  for (let i = t.items.length - 1; i >= 0; i--) {
    const item = t.items[i]!;
    if (event.kind === "question" && item.kind === "question" && item.answer === undefined) {
      return { ...t, items: replaced(t.items, i, { ...item, answer: event.text ?? "" }) };
    }
    if (item.kind === "awaiting" && item.awaiting === event.kind && item.answer === undefined) {
      const answer = {
        ...(event.approved === undefined ? {} : { approved: event.approved }),
        ...(event.text === undefined ? {} : { text: event.text }),
        ...(event.budget_usd === undefined ? {} : { budget_usd: event.budget_usd }),
      };
      return { ...t, items: replaced(t.items, i, { ...item, answer }) };
    }
  }
  return t;
}

/**
 * The end of a replayed record (a stored task opened without running it). `interrupted`: the host
 * knows no process runs the task any more; a record that ends mid-run (no result after its last
 * activity) then shows as interrupted, as `cairn history` says.
 */
export function endReplay(t: Transcript, o: { interrupted: boolean }): Transcript {
  if (!o.interrupted || (t.status !== "running" && t.status !== "awaiting")) return t;
  const { awaiting: _awaiting, streaming: _streaming, ...rest } = t;
  return { ...rest, status: "interrupted" };
}

/**
 * Whether a checkpoint marks a step in the conversation: one that changed files. The task's start
 * (the workspace as it was: every file "changed") and an end that changed nothing are the way
 * back, listed with the rest, but mark no step.
 */
export function marksAStep(checkpoint: TranscriptCheckpoint): boolean {
  return checkpoint.changed_files > 0 && checkpoint.label !== "task start";
}
