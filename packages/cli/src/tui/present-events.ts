import { applyToolCallEvent, type AgentEvent, type ToolCallRecord } from "@cairn/core";
import { editDiff } from "./edit-diff.js";
import { messageProse, type CalledTool } from "./message-pieces.js";
import type { SessionView } from "./session-view.js";
import { TerminalStream, terminalSafe } from "../terminal-text.js";
import { replyOverflow } from "./reply-overflow.js";
import type { ToolCard } from "./view-types.js";

/** Calls whose card would only repeat what is shown another way (their text, a question, the result). */
const hiddenCards = new Set(["plan_mode_respond", "act_mode_respond", "attempt_completion", "ask_followup_question"]);

const MAX_OUTPUT_CHARS = 32 * 1024;
const MAX_RESULT_CHARS = 4 * 1024;
const MAX_REASONING_CHARS = 64 * 1024;
/** Problems kept per card (the model got up to 20 per file; the card counts the rest). */
export const MAX_CARD_PROBLEMS = 10;

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function words(text: string): number {
  return text.split(/\s+/).filter((w) => w !== "").length;
}

function keepTail(text: string, max: number): string {
  return text.length > max ? text.slice(text.length - max) : text;
}

export function usageTotal(u: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }): number {
  return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens;
}

/**
 * Turns AgentEvents into what the view shows. A tool call's card follows core's record of the
 * call (applyToolCallEvent): its status, decision and result are the record's, its output is
 * the tool_output events', and an edit's diff is the one core previewed once: carried by its
 * approval, or by its running update when it ran without asking (auto-approve, yolo, a rule).
 */
export class EventPresenter {
  private streamedText = false;
  /** This turn's calls, so their XML blocks can be told from prose in the turn's message. */
  private turnCalls: CalledTool[] = [];
  /** Cards whose calls are hidden but still pending, so their results are dropped too. */
  private readonly hidden = new Set<string>();
  /** Core's records of the calls not yet ended. */
  private records: ReadonlyMap<string, ToolCallRecord> = new Map();
  private readonly replay: boolean;
  private readonly textStream = new TerminalStream();
  private readonly reasoningStream = new TerminalStream();

  /** `replay: true` for a stored task's events: its approvals are over, so their diffs are not printed as proposals. */
  constructor(
    private readonly view: SessionView,
    options: { replay?: boolean } = {},
  ) {
    this.replay = options.replay ?? false;
  }

  /** Moves the streamed reply and reasoning into the history. */
  flushReply(): void {
    const live = this.view.live;
    if (live.reasoning.trim() !== "") {
      this.view.add({ kind: "reasoning", text: live.reasoning, words: live.reasoningWords });
      this.view.lastFolded = { title: "reasoning", text: live.reasoning };
    }
    live.reasoning = "";
    live.reasoningWords = 0;
    // Blank lines left where a tool block was cut out of the prose are not the reply's.
    const text = live.text.replace(/\s+$/, "").replace(live.committed ? /^$/ : /^(?:[ \t]*\n)+/, "");
    if (text.trim() !== "") this.view.add({ kind: "assistant", text, ...(live.fence !== undefined ? { fence: live.fence } : {}) });
    live.text = "";
    live.committed = false;
    delete live.fence;
    this.view.changed();
  }

  private card(id: string): ToolCard | undefined {
    return this.view.live.tools.find((c) => c.id === id);
  }

  apply(raw: AgentEvent): void {
    // Ink prints strings raw: the model's and tools' text (replies, summaries, output, diffs) is
    // cleaned of escape sequences before any of it reaches the view; a streamed delta through its
    // stream, so that a sequence split across deltas goes whole.
    const event =
      raw.type === "text_delta" ? { ...raw, text: this.textStream.push(raw.text) } : raw.type === "reasoning_delta" ? { ...raw, text: this.reasoningStream.push(raw.text) } : terminalSafe(raw);
    const { view } = this;
    const live = view.live;
    switch (event.type) {
      case "system":
        return this.system(event);
      case "turn_start":
        this.flushReply();
        this.streamedText = false;
        this.turnCalls = [];
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
        const note = `${event.path}: ${event.blocks_applied} block${event.blocks_applied === 1 ? "" : "s"} applied`;
        live.streamingCall = { id: event.tool_use_id, name: same?.name ?? "replace_in_file", chars: same?.chars ?? 0, note };
        view.changed(false);
        return;
      }
      case "tool_call":
        this.records = applyToolCallEvent(this.records, event);
        return this.toolCall(event);
      case "tool_call_update":
        this.records = applyToolCallEvent(this.records, event);
        return this.toolCallUpdate(event);
      case "subagent": {
        // Sub-agents' steps show under the use_subagents card that started them, as its output.
        const card = this.card(event.parent_tool_use_id);
        if (!card) return;
        const mark = event.status === "running" ? "·" : event.status === "completed" ? "✓" : "✗";
        card.output = keepTail(`${card.output}${mark} sub-agent ${event.index + 1}: ${event.activity.split("\n", 1)[0]}\n`, MAX_OUTPUT_CHARS);
        card.outputLines += 1;
        view.changed(false);
        return;
      }
      case "diagnostics": {
        // The errors an edit introduced show under its card; the event comes before the call ends.
        const card = this.card(event.tool_use_id);
        if (!card || event.problems.length === 0) return;
        const kept = card.problems ?? [];
        for (const p of event.problems.slice(0, Math.max(0, MAX_CARD_PROBLEMS - kept.length))) {
          kept.push({ path: event.path, line: p.line, column: p.column, message: p.message.split("\n", 1)[0]!, ...(p.code === undefined ? {} : { code: p.code }) });
        }
        card.problems = kept;
        card.problemCount = (card.problemCount ?? 0) + event.problems.length;
        view.changed(false);
        return;
      }
      case "tool_output": {
        // The output's end is kept here, bounded, rather than folded into the record: a long
        // build's whole output would otherwise be held (and copied) while it streams.
        const card = this.card(event.tool_use_id);
        if (!card) return;
        card.output = keepTail(card.output + event.text, MAX_OUTPUT_CHARS);
        card.outputLines += countLines(event.text);
        view.changed(false);
        return;
      }

      case "assistant": {
        // A reply that streamed no prose (only a tool call, or a replayed one): its text may
        // still hold the calls as XML blocks (the xml protocol), which are not prose.
        if (!this.streamedText) live.text += messageProse(event.message.content, this.turnCalls);
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
        view.status.checkpoints++;
        view.changed();
        return;
      case "usage":
        view.status.contextTokens = usageTotal(event.usage);
        view.status.contextEstimated = event.usage.estimated === true;
        if (event.total_cost_usd !== null) view.status.costUsd = event.total_cost_usd;
        view.changed(false);
        return;
      case "question":
        this.flushReply();
        view.add({ kind: "question", question: event.question, options: event.options });
        return;
      case "error":
        this.flushReply();
        view.add({ kind: "error", text: event.message });
        return;
      case "result":
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

  private system(event: Extract<AgentEvent, { type: "system" }>): void {
    const { view } = this;
    switch (event.subtype) {
      case "init":
        view.status.mode = event.mode;
        view.status.model = event.model;
        view.status.provider = event.provider;
        view.status.yolo = event.permissionMode === "yolo";
        view.changed();
        return;
      case "mode":
        view.status.mode = event.mode;
        view.add({ kind: "notice", level: "info", text: `Now in ${event.mode.toUpperCase()} mode: ${event.reason}.` });
        return;
      case "api_retry":
        view.add({
          kind: "notice",
          level: "warning",
          text: `Model request failed (${event.error_status ?? "network"}: ${event.error.split("\n")[0]}); retry ${event.attempt}/${event.max_retries} in ${(event.retry_delay_ms / 1000).toFixed(1)}s.`,
        });
        return;
      case "fallback_model":
        view.status.model = event.to_model;
        view.add({ kind: "notice", level: "warning", text: `Switched to the fallback model ${event.to_model}.` });
        return;
      case "compact_boundary": {
        const m = event.compact_metadata;
        view.status.contextTokens = m.post_tokens;
        view.status.contextEstimated = false;
        view.add({ kind: "notice", level: "info", text: `Context ${m.actions.join(" + ")}: ${m.pre_tokens} → ${m.post_tokens} tokens.` });
        return;
      }
      case "notice":
        view.add({ kind: "notice", level: event.level, text: event.message });
        return;
    }
  }

  /** Copies what core's record says of the call onto its card: its status, decision and result. */
  private follow(card: ToolCard): void {
    const record = this.records.get(card.id);
    if (!record) return;
    card.status = record.status;
    if (record.decision) card.decision = record.decision;
    if (record.content !== undefined) card.result = record.content.length > MAX_RESULT_CHARS ? `${record.content.slice(0, MAX_RESULT_CHARS)}…` : record.content;
  }

  /** A call's new status: the approval it awaits (an edit's diff printed in full first), who let it run or refused it, or its end. */
  private toolCallUpdate(event: Extract<AgentEvent, { type: "tool_call_update" }>): void {
    const { view } = this;
    const record = this.records.get(event.tool_use_id);
    const ended = record !== undefined && record.status !== "pending" && record.status !== "awaiting_approval" && record.status !== "running";
    if (this.hidden.has(event.tool_use_id)) {
      if (!ended) return;
      this.hidden.delete(event.tool_use_id);
      this.forget(event.tool_use_id);
      if (record.status === "failed") view.add({ kind: "error", text: `${record.name}: ${(record.content ?? "").split("\n")[0]}` });
      return;
    }
    const card = this.card(event.tool_use_id);
    if (!card) return;
    this.follow(card);
    // The diff arrives once, with the approval or on running; a line diff of it is made once too.
    const arrived = event.status === "awaiting_approval" ? event.approval.preview : event.status === "running" ? event.preview : undefined;
    const edit = editDiff(arrived);
    if (edit) card.edit = edit;
    if (record?.status === "awaiting_approval") {
      if (edit && edit.lines.length > 0 && !this.replay) {
        card.shownForApproval = true;
        view.add({ kind: "proposal", card: { ...card } });
      }
    }
    if (ended) this.finish(card);
    view.changed();
  }

  private forget(id: string): void {
    const records = new Map(this.records);
    records.delete(id);
    this.records = records;
  }

  private toolCall(event: Extract<AgentEvent, { type: "tool_call" }>): void {
    const { view } = this;
    view.live.streamingCall = undefined;
    this.turnCalls.push({ name: event.name, input: event.input });
    this.flushReply();
    if (hiddenCards.has(event.name)) {
      this.hidden.add(event.tool_use_id);
      const response = event.input.response;
      if ((event.name === "plan_mode_respond" || event.name === "act_mode_respond") && typeof response === "string") {
        view.add({ kind: "assistant", text: response });
      }
      return;
    }
    const card: ToolCard = {
      id: event.tool_use_id,
      name: event.name,
      kind: event.kind === "unknown" ? "other" : event.kind,
      summary: event.summary,
      input: event.input,
      status: event.status,
      output: "",
      outputLines: 0,
    };
    this.follow(card);
    view.live.tools.push(card);
    view.changed();
  }

  /** An ended call: its card leaves the live region for the history. */
  private finish(card: ToolCard): void {
    const { view } = this;
    this.forget(card.id);
    view.live.tools = view.live.tools.filter((c) => c !== card);
    if (card.kind === "command" && card.output !== "") view.lastFolded = { title: `output of ${card.summary}`, text: card.output };
    view.add({ kind: "tool", card });
  }

  private result(event: Extract<AgentEvent, { type: "result" }>): void {
    const { view } = this;
    this.flushReply();
    const u = event.usage;
    const tokens = `${u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens} in / ${u.output_tokens} out tokens`;
    const cost = event.total_cost_usd === null ? "" : `, $${event.total_cost_usd.toFixed(4)}`;
    const detail = `${event.num_turns} turn${event.num_turns === 1 ? "" : "s"}, ${tokens}${cost}`;
    if (event.total_cost_usd !== null) view.status.costUsd = event.total_cost_usd;
    let text = event.result;
    if (event.subtype === "needs_input") text = event.plan ? "The plan is waiting for your review." : "Waiting for your answer: type it below.";
    if (event.subtype === "error_aborted") text = "Stopped. Type a message to carry on, or press Esc again to leave (the task stays resumable).";
    view.add({ kind: "result", subtype: event.subtype, text, detail });
  }
}
