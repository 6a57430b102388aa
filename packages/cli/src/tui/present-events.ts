import type { AgentEvent, ApprovalPreview } from "@cairn/core";
import { cardOf, conversationCalls, endReplay, foldEvent, initialTranscript, marksAStep, type NoticeEvent, type ResultEvent, type ToolCard as CallRecord, type Transcript, type TranscriptCheckpoint, type TranscriptItem } from "@cairn/core/transcript";
import { editDiff, type EditDiff } from "./edit-diff.js";
import { imageChip } from "./pasted-image.js";
import type { SessionView } from "./session-view.js";
import { TerminalStream, terminalSafe } from "../terminal-text.js";
import { replyOverflow } from "./reply-overflow.js";
import type { HistoryInput, ToolCard } from "./view-types.js";

const MAX_RESULT_CHARS = 4 * 1024;
const MAX_REASONING_CHARS = 64 * 1024;
/** Problems kept per card (the model got up to 20 per file; the card counts the rest). */
const MAX_CARD_PROBLEMS = 10;
/** What a reopened task shows of its record: its last items. */
const REPLAYED_ITEMS = 40;

function words(text: string): number {
  return text.split(/\s+/).filter((w) => w !== "").length;
}

function keepTail(text: string, max: number): string {
  return text.length > max ? text.slice(text.length - max) : text;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function usageTotal(u: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }): number {
  return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens;
}

const ended = (record: CallRecord) => record.status !== "pending" && record.status !== "awaiting_approval" && record.status !== "running";

/**
 * Turns AgentEvents into what the view shows. What the task is (its calls, messages, waits and
 * answers) is core's fold of the events (foldEvent); this keeps only the terminal's side: the
 * streaming reply and reasoning in the live region, cards moving to the history as their calls
 * end, an edit's diff printed once for its approval, and a reopened task's record replayed from
 * the same fold, so it reads in the order it was seen live.
 */
export class EventPresenter {
  private transcript: Transcript = initialTranscript();
  private streamedText = false;
  /** Cards whose diff was printed in full for their approval: their finished card need not repeat it. */
  private readonly shownForApproval = new Set<string>();
  /** An edit's line diff, made once per preview. */
  private readonly diffs = new WeakMap<ApprovalPreview, EditDiff | undefined>();
  /** The names of the pictures going with the next message (its user_message only counts them). */
  attachedNames: string[] = [];
  private readonly textStream = new TerminalStream();
  private readonly reasoningStream = new TerminalStream();

  constructor(private readonly view: SessionView) {}

  /** Moves the streamed reply and reasoning into the history. */
  flushReply(): void {
    const live = this.view.live;
    this.flushReasoningOnly();
    // Blank lines left where a tool block was cut out of the prose are not the reply's.
    const text = live.text.replace(/\s+$/, "").replace(live.committed ? /^$/ : /^(?:[ \t]*\n)+/, "");
    if (text.trim() !== "") this.view.add({ kind: "assistant", text, ...(live.fence !== undefined ? { fence: live.fence } : {}) });
    live.text = "";
    live.committed = false;
    delete live.fence;
    this.view.changed();
  }

  /**
   * A stored task's record, as the person left it: its last items, from the fold, so each message
   * comes before the cards it introduced. `interrupted`: no process runs it any more. Events that
   * follow (apply) carry on from it.
   */
  replay(events: readonly AgentEvent[], interrupted: boolean): void {
    let t = this.transcript;
    for (const event of events) t = foldEvent(t, terminalSafe(event));
    this.transcript = endReplay(t, { interrupted });
    const { items, usage, task_id, model, provider, mode } = this.transcript;
    const shown = items.slice(-REPLAYED_ITEMS);
    if (shown.length < items.length) this.view.add({ kind: "notice", level: "info", text: "… earlier events of this task are not shown (cairn show <id> lists them)." });
    const numbers = this.replayedNumbers(items);
    for (const item of shown) this.replayItem(item, numbers);
    Object.assign(this.view.status, { taskId: task_id, model, provider, mode, contextTokens: usage.context_tokens, contextEstimated: usage.estimated, costUsd: usage.cost_usd, ...(usage.budget_usd !== undefined ? { budgetUsd: usage.budget_usd } : {}) });
    this.view.changed();
  }

  /**
   * The /checkpoints number of each checkpoint in a stored task's record: its place among the
   * task's checkpoints (from its last hand-off on), when those are all the task's list holds. A
   * restore recorded before restores published their own checkpoints added to the list without an
   * event: the markers of such a task name their hash.
   */
  private replayedNumbers(items: readonly TranscriptItem[]): Map<string, number | string> {
    const numbers = new Map<string, number | string>();
    let count = 0;
    for (const item of items) {
      if (item.kind === "handoff") count = 0;
      if (item.kind === "checkpoint") numbers.set(item.key, ++count);
    }
    if (count === this.view.status.checkpoints) return numbers;
    for (const item of items) if (item.kind === "checkpoint") numbers.set(item.key, item.hash.slice(0, 10));
    return numbers;
  }

  private replayItem(item: TranscriptItem, numbers: ReadonlyMap<string, number | string>): void {
    const { view } = this;
    switch (item.kind) {
      case "user":
        return this.user(item.text, item.images);
      case "assistant":
        if (item.reasoning.trim() !== "") view.add({ kind: "reasoning", text: item.reasoning, words: words(item.reasoning) });
        if (item.text.trim() !== "") view.add({ kind: "assistant", text: item.text.replace(/\s+$/, "").replace(/^(?:[ \t]*\n)+/, "") });
        return;
      case "tool":
        if (conversationCalls.has(item.card.name)) return this.hiddenCall(item.card, true);
        return view.add({ kind: "tool", card: this.cardView(item.card) });
      case "question":
        view.add({ kind: "question", question: item.question, options: [...item.options] });
        if (item.answer !== undefined) this.user(item.answer);
        return;
      case "awaiting":
        this.awaiting(item.awaiting, item.text);
        if (item.answer) this.answered(item.awaiting, item.answer.approved, item.answer.text);
        return;
      case "notice":
        return this.notice(item.event);
      case "handoff":
        return this.handoff(item.context);
      case "checkpoint":
        return this.checkpoint(item, numbers.get(item.key));
      case "restored":
        return this.restored(item);
      case "result":
        return this.result(item.event);
    }
  }

  apply(raw: AgentEvent): void {
    // Ink prints strings raw: the model's and tools' text (replies, summaries, output, diffs) is
    // cleaned of escape sequences before any of it reaches the view; a streamed delta through its
    // stream, so that a sequence split across deltas goes whole.
    const event =
      raw.type === "text_delta" ? { ...raw, text: this.textStream.push(raw.text) } : raw.type === "reasoning_delta" ? { ...raw, text: this.reasoningStream.push(raw.text) } : terminalSafe(raw);
    // Earlier turns are printed by now: the fold keeps only the turn in progress, so a long
    // session's memory stays bounded (the history is the terminal's scrollback).
    const kept = event.type === "turn_start" ? { ...this.transcript, items: [] } : this.transcript;
    this.transcript = foldEvent(kept, event);
    const { view } = this;
    const live = view.live;
    switch (event.type) {
      case "system":
        return this.system(event);
      case "session_opened":
        Object.assign(view.status, { taskId: event.task_id, model: event.model, provider: event.provider, mode: event.mode });
        view.changed();
        return;
      case "user_message":
        return this.user(event.text, event.images, this.attachedNames.splice(0));
      case "awaiting":
        return this.awaiting(event.kind, event.text);
      case "answered":
        if (event.budget_usd !== undefined) view.status.budgetUsd = event.budget_usd;
        return this.answered(event.kind, event.approved, event.text);
      case "handoff":
        this.flushReply();
        return this.handoff(event.context);
      case "restored":
        return this.restored(event);
      case "turn_start":
        this.flushReply();
        this.streamedText = false;
        return;
      case "text_delta": {
        if (event.text === "") return;
        if (live.reasoning !== "") this.flushReasoningOnly();
        this.streamedText = true;
        live.text += event.text;
        // Only at a markdown block boundary (or inside a code block), so each part renders as it will in the whole.
        const { done, rest, fence } = replyOverflow(live.text, view.size.columns - 2, view.liveTextRows, live.fence);
        if (done !== "") {
          view.add({ kind: "assistant", text: done, ...(live.fence !== undefined ? { fence: live.fence } : {}) });
          live.text = rest;
          live.committed = true;
          if (fence !== undefined) live.fence = fence;
          else delete live.fence;
        }
        view.changed(false);
        return;
      }
      case "reasoning_delta":
        live.reasoning = keepTail(live.reasoning + event.text, MAX_REASONING_CHARS);
        live.reasoningWords += words(event.text);
        view.changed(false);
        return;
      case "stream_discarded":
        if (live.committed) view.add({ kind: "notice", level: "warning", text: `The reply above was cut off and is being retried (${event.reason.split("\n")[0]}).` });
        live.text = "";
        delete live.fence;
        live.reasoning = "";
        live.reasoningWords = 0;
        live.committed = false;
        view.changed();
        return;
      case "tool_call_delta": {
        const same = live.streamingCall?.id === event.id ? live.streamingCall : undefined;
        live.streamingCall = { ...same, id: event.id, name: event.name, chars: (same?.chars ?? 0) + event.text.length };
        view.changed(false);
        return;
      }
      case "edit_preview": {
        const same = live.streamingCall?.id === event.tool_use_id ? live.streamingCall : undefined;
        const note = `${event.path}: ${plural(event.blocks_applied, "block")} applied`;
        live.streamingCall = { id: event.tool_use_id, name: same?.name ?? "replace_in_file", chars: same?.chars ?? 0, note };
        view.changed(false);
        return;
      }
      case "tool_call":
        return this.toolCall(event.tool_use_id);
      case "tool_call_update":
      case "tool_output":
      case "diagnostics":
        return this.callChanged(event.tool_use_id, event);
      case "subagent":
        // Sub-agents' steps show under the use_subagents card that started them, as its output.
        return this.callChanged(event.parent_tool_use_id, event);
      case "assistant": {
        // A reply that streamed no prose (only a tool call): its text as the fold has it, the
        // calls written in it as XML blocks (the xml protocol) cut out.
        if (!this.streamedText) live.text += this.messageText(event.message.id);
        this.flushReply();
        this.streamedText = false;
        return;
      }
      case "task_progress": {
        // The focus chain, briefly: how far, and the next open step.
        const next = event.items.find((i) => !i.done);
        view.add({ kind: "notice", level: "info", text: `Progress ${event.items.filter((i) => i.done).length}/${event.items.length}${next ? ` · next: ${next.text}` : " · all done"}` });
        return;
      }
      case "checkpoint":
        // The count follows the task's list (set from it as the task opens and after each run and restore): this one's number in it.
        view.status.checkpoints++;
        this.checkpoint(event, view.status.checkpoints);
        view.changed();
        return;
      case "usage":
        view.status.contextTokens = usageTotal(event.usage);
        view.status.contextEstimated = event.usage.estimated === true;
        if (event.total_cost_usd !== null) view.status.costUsd = event.total_cost_usd;
        if (event.budget_usd !== undefined) view.status.budgetUsd = event.budget_usd;
        view.changed(false);
        return;
      case "question":
        this.flushReply();
        view.add({ kind: "question", question: event.question, options: event.options });
        return;
      case "error":
        this.flushReply();
        return this.notice(event);
      case "result":
        this.flushReply();
        return this.result(event);
    }
  }

  private flushReasoningOnly(): void {
    const live = this.view.live;
    if (live.reasoning.trim() !== "") {
      this.view.add({ kind: "reasoning", text: live.reasoning, words: live.reasoningWords });
      this.view.lastFolded = { title: "reasoning", text: live.reasoning };
    }
    live.reasoning = "";
    live.reasoningWords = 0;
  }

  /** The text of the message the fold holds under this id (the current task's last one). */
  private messageText(id: string): string {
    const item = this.transcript.items.findLast((i) => i.kind === "assistant" && i.message_id === id);
    return item?.kind === "assistant" ? item.text : "";
  }

  private user(text: string, images = 0, names: readonly string[] = []): void {
    const chips = Array.from({ length: images }, (_, i) => imageChip(names[i] ?? "picture"));
    this.view.add({ kind: "user", text: [text, ...chips].join("\n") });
  }

  /** A plan shows as the model's reply and a stuck task's reason in its prompt; a hand-off's context here, in full. */
  private awaiting(kind: "plan" | "continue" | "handoff", text: string): void {
    if (kind === "handoff") this.view.add({ kind: "info", title: "The model wants to hand over to a fresh task, which would start from:", lines: text.split("\n") });
  }

  /** The person's words (an answer, why not); a hand-off agreed to shows as the hand-off. */
  private answered(kind: "question" | "plan" | "continue" | "handoff", approved: boolean | undefined, text: string | undefined): void {
    if (text !== undefined && kind !== "continue" && !(kind === "handoff" && approved)) this.user(text);
  }

  private handoff(context: string): void {
    this.view.add({ kind: "info", title: "A fresh task carries this work on, starting from:", lines: context.split("\n") });
  }

  /** A step's checkpoint, dim, where it was made: how to go back to it. */
  private checkpoint(checkpoint: TranscriptCheckpoint, ref: number | string | undefined): void {
    if (!marksAStep(checkpoint) || ref === undefined) return;
    this.view.add({ kind: "notice", level: "info", text: `checkpoint ${ref} · ${plural(checkpoint.changed_files, "file")} · /checkpoints restore ${ref}` });
  }

  private restored(event: { hash: string; message_index: number; what: "files" | "conversation" | "both"; checkpoint?: number }): void {
    const what = event.what === "both" ? "Files and conversation" : event.what === "files" ? "Files" : "Conversation";
    const kept = event.what === "files" ? "" : ` (${plural(event.message_index, "message")} kept)`;
    this.view.add({ kind: "notice", level: "info", text: `${what} restored to checkpoint ${event.checkpoint ?? event.hash.slice(0, 10)}${kept}.` });
  }

  private system(event: Extract<AgentEvent, { type: "system" }>): void {
    const { status } = this.view;
    switch (event.subtype) {
      case "init":
        status.mode = event.mode;
        status.model = event.model;
        status.provider = event.provider;
        status.yolo = event.permissionMode === "yolo";
        this.view.changed();
        return;
      case "mode":
        status.mode = event.mode;
        break;
      case "fallback_model":
        status.model = event.to_model;
        break;
      case "compact_boundary":
        status.contextTokens = event.compact_metadata.post_tokens;
        status.contextEstimated = false;
        break;
    }
    this.notice(event);
  }

  /** What the history says of a notice-like event (live or replayed). */
  private notice(event: NoticeEvent): void {
    this.view.add(noticeItem(event));
  }

  /** The card a person sees of core's record of a call. */
  private cardView(record: CallRecord): ToolCard {
    const preview = record.preview;
    if (preview && !this.diffs.has(preview)) this.diffs.set(preview, editDiff(preview));
    const edit = preview ? this.diffs.get(preview) : undefined;
    const problems = record.diagnostics.flatMap((d) =>
      d.problems.map((p) => ({ path: d.path, line: p.line, column: p.column, message: p.message.split("\n", 1)[0]!, ...(p.code === undefined ? {} : { code: p.code }) })),
    );
    const marks = { running: "·", completed: "✓", failed: "✗" } as const;
    const agents = record.subagents.map((s) => `${marks[s.status]} sub-agent ${s.index + 1}: ${s.activity.split("\n", 1)[0]}\n`).join("");
    return {
      id: record.tool_use_id,
      name: record.name,
      kind: record.kind === "unknown" ? "other" : record.kind,
      summary: record.summary,
      input: record.input,
      status: record.status,
      ...(record.decision ? { decision: record.decision } : {}),
      ...(edit ? { edit } : {}),
      ...(this.shownForApproval.has(record.tool_use_id) ? { shownForApproval: true } : {}),
      output: agents + record.output,
      outputLines: record.subagents.length + record.output_lines,
      ...(record.content === undefined ? {} : { result: record.content.length > MAX_RESULT_CHARS ? `${record.content.slice(0, MAX_RESULT_CHARS)}…` : record.content }),
      ...(problems.length > 0 ? { problems: problems.slice(0, MAX_CARD_PROBLEMS), problemCount: problems.length } : {}),
    };
  }

  /** A hidden call shows only what is not shown another way: a plan's or reply's text, or that it failed. */
  private hiddenCall(record: CallRecord, whole: boolean): void {
    const response = record.input.response;
    if (whole && (record.name === "plan_mode_respond" || record.name === "act_mode_respond") && typeof response === "string") this.view.add({ kind: "assistant", text: response });
    if (record.status === "failed") this.view.add({ kind: "error", text: `${record.name}: ${(record.content ?? "").split("\n")[0]}` });
  }

  private toolCall(id: string): void {
    const { view } = this;
    const record = cardOf(this.transcript, id);
    view.live.streamingCall = undefined;
    this.flushReply();
    if (!record) return;
    if (conversationCalls.has(record.name)) return this.hiddenCall(record, true);
    view.live.tools.push(this.cardView(record));
    view.changed();
  }

  /** A call's card follows its record: the approval it awaits (an edit's diff printed in full first), output, problems, its end. */
  private callChanged(id: string, event: AgentEvent): void {
    const { view } = this;
    const record = cardOf(this.transcript, id);
    if (!record) return;
    const update = event.type === "tool_call_update";
    if (conversationCalls.has(record.name)) {
      if (update && ended(record)) this.hiddenCall(record, false);
      return;
    }
    const index = view.live.tools.findIndex((c) => c.id === id);
    if (index === -1) return;
    let card = this.cardView(record);
    if (update && record.status === "awaiting_approval" && card.edit && card.edit.lines.length > 0) {
      this.shownForApproval.add(id);
      card = { ...card, shownForApproval: true };
      view.add({ kind: "proposal", card: { ...card } });
    }
    if (update && ended(record)) {
      // An ended call: its card leaves the live region for the history.
      view.live.tools.splice(index, 1);
      if (card.kind === "command" && card.output !== "") view.lastFolded = { title: `output of ${card.summary}`, text: card.output };
      view.add({ kind: "tool", card });
    } else {
      view.live.tools[index] = card;
    }
    view.changed(update);
  }

  private result(event: ResultEvent): void {
    const { view } = this;
    if (event.total_cost_usd !== null) view.status.costUsd = event.total_cost_usd;
    view.add(resultItem(event));
  }
}

/** A notice, a warning or an error in the history. */
function noticeItem(event: NoticeEvent): HistoryInput {
  if (event.type === "error") return { kind: "error", text: event.message };
  switch (event.subtype) {
    case "mode":
      return { kind: "notice", level: "info", text: `Now in ${event.mode.toUpperCase()} mode: ${event.reason}.` };
    case "api_retry":
      return {
        kind: "notice",
        level: "warning",
        text: `Model request failed (${event.error_status ?? "network"}: ${event.error.split("\n")[0]}); retry ${event.attempt}/${event.max_retries} in ${(event.retry_delay_ms / 1000).toFixed(1)}s.`,
      };
    case "fallback_model":
      return { kind: "notice", level: "warning", text: `Switched to the fallback model ${event.to_model}.` };
    case "compact_boundary": {
      const m = event.compact_metadata;
      return { kind: "notice", level: "info", text: `Context ${m.actions.join(" + ")}: ${m.pre_tokens} → ${m.post_tokens} tokens.` };
    }
    case "notice":
      return { kind: "notice", level: event.level, text: event.message };
  }
}

/** A run's end: how it ended, and its turns, tokens and cost. */
function resultItem(event: ResultEvent): HistoryInput {
  const u = event.usage;
  const tokens = `${u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens} in / ${u.output_tokens} out tokens`;
  const cost = event.total_cost_usd === null ? "" : `, $${event.total_cost_usd.toFixed(4)}`;
  const detail = `${plural(event.num_turns, "turn")}, ${tokens}${cost}`;
  let text = event.result;
  if (event.subtype === "needs_input") text = event.plan ? "The plan is waiting for your review." : "Waiting for your answer: type it below.";
  if (event.subtype === "error_aborted") text = "Stopped. Type a message to carry on, or press Esc again to leave (the task stays resumable).";
  return { kind: "result", subtype: event.subtype, text, detail };
}
