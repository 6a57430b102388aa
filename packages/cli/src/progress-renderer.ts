import { changedItems, foldEvent, initialTranscript, type AgentEvent, type AssistantItem, type NoticeEvent, type ResultEvent, type ToolCard, type Transcript, type TranscriptItem } from "@cairn/core";
import { CommandOutputFeed, type OutputFeedOptions } from "./command-output-feed.js";
import { TerminalStream, terminalText } from "./terminal-text.js";

function firstLine(text: string, max = 160): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function dollars(cost: number | null): string {
  return cost === null ? "cost unknown" : `$${cost.toFixed(4)}`;
}

/** "exit code 0", from a command's result; undefined for results that carry none (still running). */
function exitNote(content: string): { ok: boolean; text: string } | undefined {
  const code = /^Exit code: (.+)$/m.exec(content)?.[1];
  return code === undefined ? undefined : { ok: code === "0", text: `exit code ${code}` };
}

/**
 * "2 sub-agents finished, 1 failed", from use_subagents' result (its reports are for the model,
 * each under a <subagent index=…> tag); undefined when it holds no reports (a refusal, an error).
 */
function subagentsNote(content: string): { ok: boolean; text: string } | undefined {
  const statuses = [...content.matchAll(/^<subagent index="\d+" task="[^"]*" status="(completed|failed)">$/gm)].map((m) => m[1]);
  if (statuses.length === 0) return undefined;
  const failed = statuses.filter((s) => s === "failed").length;
  const text = `${statuses.length} sub-agent${statuses.length === 1 ? "" : "s"} finished${failed > 0 ? `, ${failed} failed` : ""}`;
  return { ok: failed === 0, text };
}

const ended = (card: ToolCard | undefined) => card !== undefined && card.status !== "pending" && card.status !== "awaiting_approval" && card.status !== "running";

/**
 * Human-readable progress of a headless run, written to stderr as the task's transcript (core's
 * fold of its events) changes: a reply as it streams, each call as a line and its end, notices,
 * questions and the result. A running command's output is shown as it comes (throttled, see
 * CommandOutputFeed), then its exit code.
 */
export class ProgressRenderer {
  private transcript: Transcript = initialTranscript();
  private atLineStart = true;
  /** Characters of each streaming reply written so far, so a discard is only called out if some of it was seen. */
  private readonly written = new Map<string, number>();
  /** The last error shown, so the result line does not say it a second time. */
  private shownError: string | undefined;
  private readonly output: CommandOutputFeed;
  private readonly write: (text: string) => void;
  /** The streamed reply, whose escape sequences may be split across its deltas. */
  private readonly reply = new TerminalStream();

  constructor(
    private readonly rawWrite: (text: string) => void,
    outputOptions: OutputFeedOptions = {},
  ) {
    // Everything shown comes from the model or its tools at some remove (replies, summaries,
    // errors, command output): no escape sequence of theirs reaches the person's terminal.
    this.write = (text) => rawWrite(terminalText(text));
    this.output = new CommandOutputFeed((lines) => {
      for (const line of lines) this.line(line);
    }, outputOptions);
  }

  /** Writes what is held back and stops the output timer. */
  close(): void {
    this.output.close();
  }

  private line(text: string): void {
    // Whatever comes next, a sequence the reply left open will not be finished.
    this.reply.end();
    if (!this.atLineStart) this.write("\n");
    this.write(`${text}\n`);
    this.atLineStart = true;
  }

  render(event: AgentEvent): void {
    const before = this.transcript;
    const after = foldEvent(before, event);
    this.transcript = after;
    if (after.init !== before.init && after.init) {
      const init = after.init;
      this.line(`cairn · ${init.provider}/${init.model} · ${init.protocol} · ${init.mode} · ${init.cwd}`);
    }
    for (const { old, item } of changedItems(before, after)) this.changed(old, item);
    // With a budget, the spend against it after each request: the person sees it coming.
    if (event.type === "usage" && event.budget_usd !== undefined && event.total_cost_usd !== null) this.line(`· $${event.total_cost_usd.toFixed(4)} of the $${event.budget_usd} budget spent`);
  }

  /** What to say of an item that is new (`old` undefined) or has changed. */
  private changed(old: TranscriptItem | undefined, item: TranscriptItem): void {
    switch (item.kind) {
      case "assistant":
        return this.replyChanged(old as AssistantItem | undefined, item);
      case "tool":
        return this.cardChanged(old?.kind === "tool" ? old.card : undefined, item.card);
      case "question":
        if (!old) this.line(`? ${item.question}${item.options.length > 0 ? `\n  options: ${item.options.join(" | ")}` : ""}`);
        return;
      case "notice":
        if (!old) this.notice(item.event);
        return;
      case "handoff":
        if (!old) this.line(`· a fresh task carries this work on: ${item.task_id}`);
        return;
      case "result":
        if (!old) this.result(item.event);
        return;
      default:
        return;
    }
  }

  /** A streaming reply's new text, written as it comes; a retry that takes back what was written says so. */
  private replyChanged(old: AssistantItem | undefined, item: AssistantItem): void {
    // A complete reply streamed already (a settled one says the same without its call blocks).
    if (item.done) return;
    let written = this.written.get(item.key) ?? 0;
    if (item.discarded.length > (old?.discarded.length ?? 0)) {
      // With nothing written, there is nothing "above" to disown; the retry notice follows anyway.
      if (written > item.text.length) this.line(`[the response above was discarded: ${firstLine(item.discarded.at(-1)!, 100)}]`);
      written = Math.min(written, item.text.length);
    }
    if (item.text.length > written) {
      const text = this.reply.push(item.text.slice(written));
      written = item.text.length;
      if (text !== "") {
        this.rawWrite(text);
        this.atLineStart = text.endsWith("\n");
      }
    }
    this.written.set(item.key, written);
  }

  private cardChanged(old: ToolCard | undefined, card: ToolCard): void {
    if (!old) this.line(`→ ${card.summary}`);
    const grown = card.output_chars - (old?.output_chars ?? 0);
    if (grown > 0) this.output.push(card.tool_use_id, card.output.slice(-Math.min(grown, card.output.length)));
    for (const d of card.diagnostics.slice(old?.diagnostics.length ?? 0)) {
      // One line per edited file: how many errors the edit introduced, and the first of them.
      const first = d.problems[0]!;
      const count = d.problems.length;
      const where = `${d.path}:${first.line}:${first.column}${first.code === undefined ? "" : ` ${first.code}`}`;
      this.line(`  ${count} new problem${count === 1 ? "" : "s"}: ${where} ${firstLine(first.message, 100)}${count > 1 ? " …" : ""}`);
    }
    for (const agent of card.subagents) {
      if (old?.subagents.includes(agent)) continue;
      this.line(`  ${agent.status === "running" ? "·" : agent.status === "completed" ? "✓" : "✗"} sub-agent ${agent.index + 1}: ${firstLine(agent.activity, 100)}`);
    }
    if (ended(card) && !ended(old)) this.callEnded(card);
  }

  private callEnded(card: ToolCard): void {
    this.output.end(card.tool_use_id);
    if (card.status === "denied") {
      if (card.decision) this.line(`  ✗ denied (${card.decision.by}): ${firstLine(card.decision.reason)}`);
      return;
    }
    if (card.status === "cancelled") return;
    const content = card.content ?? "";
    const exit = card.name === "execute_command" ? exitNote(content) : undefined;
    const agents = card.name === "use_subagents" ? subagentsNote(content) : undefined;
    if (agents) this.line(`  ${agents.ok ? "✓" : "✗"} ${agents.text}`);
    else if (exit) this.line(`  ${exit.ok ? "✓" : "✗"} ${exit.text}`);
    else if (card.status === "completed") this.line(`  ✓ ${firstLine(content) || "done"}`);
    else this.line(`  ✗ ${firstLine(content)}`);
  }

  private notice(event: NoticeEvent): void {
    if (event.type === "error") {
      this.line(`✗ ${event.message}`);
      this.shownError = event.message;
      return;
    }
    if (event.subtype === "api_retry")
      this.line(`↻ model request failed (${event.error_status ?? "network"}: ${firstLine(event.error, 100)}); retry ${event.attempt}/${event.max_retries} in ${(event.retry_delay_ms / 1000).toFixed(1)}s`);
    else if (event.subtype === "fallback_model") this.line(`↻ switching to the fallback model ${event.to_model}`);
    else if (event.subtype === "mode") this.line(`· now in ${event.mode.toUpperCase()} mode: ${event.reason}`);
    else if (event.subtype === "compact_boundary") {
      const m = event.compact_metadata;
      this.line(`· context ${m.actions.join(" + ")}: ${m.pre_tokens} → ${m.post_tokens} tokens`);
    } else this.line(`${event.level === "warning" ? "!" : "·"} ${event.message}`);
  }

  private result(event: ResultEvent): void {
    this.output.close();
    const summary = `${event.num_turns} turn${event.num_turns === 1 ? "" : "s"}, ${event.usage.input_tokens + event.usage.cache_read_input_tokens + event.usage.cache_creation_input_tokens} in / ${event.usage.output_tokens} out tokens, ${dollars(event.total_cost_usd)}`;
    if (event.subtype === "success") this.line(`✓ completed (${summary})`);
    else if (event.subtype === "needs_input") this.line(`? waiting for ${event.plan ? "your approval of the plan" : "an answer"} (${summary})`);
    else if (this.shownError !== undefined && event.result.includes(this.shownError)) this.line(`· stopped (${summary})`);
    else this.line(`✗ ${event.result} (${summary})`);
  }
}
