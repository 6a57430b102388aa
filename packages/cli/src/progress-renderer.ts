import type { AgentEvent } from "@cairn/core";
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

/**
 * Human-readable progress of a headless run, written to stderr as events arrive. A running
 * command's output is shown as it comes (throttled, see CommandOutputFeed), then its exit code.
 */
export class ProgressRenderer {
  private atLineStart = true;
  /** Replies of which some text was written, so a discarded one is only called out if it was seen. */
  private readonly shownReplies = new Set<string>();
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
    switch (event.type) {
      case "system":
        if (event.subtype === "init") this.line(`cairn · ${event.provider}/${event.model} · ${event.protocol} · ${event.mode} · ${event.cwd}`);
        else if (event.subtype === "api_retry")
          this.line(`↻ model request failed (${event.error_status ?? "network"}: ${firstLine(event.error, 100)}); retry ${event.attempt}/${event.max_retries} in ${(event.retry_delay_ms / 1000).toFixed(1)}s`);
        else if (event.subtype === "fallback_model") this.line(`↻ switching to the fallback model ${event.to_model}`);
        else if (event.subtype === "mode") this.line(`· now in ${event.mode.toUpperCase()} mode: ${event.reason}`);
        else if (event.subtype === "compact_boundary") {
          const m = event.compact_metadata;
          this.line(`· context ${m.actions.join(" + ")}: ${m.pre_tokens} → ${m.post_tokens} tokens`);
        }
        else this.line(`${event.level === "warning" ? "!" : "·"} ${event.message}`);
        return;
      case "text_delta": {
        const text = this.reply.push(event.text);
        if (text === "") return;
        this.rawWrite(text);
        this.atLineStart = text.endsWith("\n");
        this.shownReplies.add(event.message_id);
        return;
      }
      case "stream_discarded":
        // With nothing written, there is nothing "above" to disown; the retry notice follows anyway.
        if (this.shownReplies.delete(event.message_id)) this.line(`[the response above was discarded: ${firstLine(event.reason, 100)}]`);
        return;
      case "tool_output":
        this.output.push(event.tool_use_id, event.text);
        return;
      case "tool_call":
        this.line(`→ ${event.summary}`);
        return;
      case "diagnostics": {
        // One line per edited file: how many errors the edit introduced, and the first of them.
        const first = event.problems[0];
        if (first === undefined) return;
        const count = event.problems.length;
        const where = `${event.path}:${first.line}:${first.column}${first.code === undefined ? "" : ` ${first.code}`}`;
        this.line(`  ${count} new problem${count === 1 ? "" : "s"}: ${where} ${firstLine(first.message, 100)}${count > 1 ? " …" : ""}`);
        return;
      }
      case "subagent":
        this.line(`  ${event.status === "running" ? "·" : event.status === "completed" ? "✓" : "✗"} sub-agent ${event.index + 1}: ${firstLine(event.activity, 100)}`);
        return;
      case "tool_call_update": {
        if (event.status === "awaiting_approval" || event.status === "running") return;
        this.output.end(event.tool_use_id);
        if (event.status === "denied") {
          if (event.decision) this.line(`  ✗ denied (${event.decision.by}): ${firstLine(event.decision.reason)}`);
          return;
        }
        if (event.status === "cancelled") return;
        const exit = event.name === "execute_command" ? exitNote(event.content) : undefined;
        const agents = event.name === "use_subagents" ? subagentsNote(event.content) : undefined;
        if (agents) this.line(`  ${agents.ok ? "✓" : "✗"} ${agents.text}`);
        else if (exit) this.line(`  ${exit.ok ? "✓" : "✗"} ${exit.text}`);
        else if (event.status === "completed") this.line(`  ✓ ${firstLine(event.content) || "done"}`);
        else this.line(`  ✗ ${firstLine(event.content)}`);
        return;
      }
      case "error":
        this.line(`✗ ${event.message}`);
        this.shownError = event.message;
        return;
      case "question":
        this.line(`? ${event.question}${event.options.length > 0 ? `\n  options: ${event.options.join(" | ")}` : ""}`);
        return;
      case "result": {
        this.output.close();
        const summary = `${event.num_turns} turn${event.num_turns === 1 ? "" : "s"}, ${event.usage.input_tokens + event.usage.cache_read_input_tokens + event.usage.cache_creation_input_tokens} in / ${event.usage.output_tokens} out tokens, ${dollars(event.total_cost_usd)}`;
        if (event.subtype === "success") this.line(`✓ completed (${summary})`);
        else if (event.subtype === "needs_input") this.line(`? waiting for ${event.plan ? "your approval of the plan" : "an answer"} (${summary})`);
        else if (this.shownError !== undefined && event.result.includes(this.shownError)) this.line(`· stopped (${summary})`);
        else this.line(`✗ ${event.result} (${summary})`);
        return;
      }
      default:
        return;
    }
  }
}
