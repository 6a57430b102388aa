import type { AgentEvent } from "@cairn/core";

function firstLine(text: string, max = 160): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function dollars(cost: number | null): string {
  return cost === null ? "cost unknown" : `$${cost.toFixed(4)}`;
}

/** Human-readable progress of a headless run, written to stderr as events arrive. */
export class ProgressRenderer {
  private atLineStart = true;

  constructor(private readonly write: (text: string) => void) {}

  private line(text: string): void {
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
      case "text_delta":
        if (event.text === "") return;
        this.write(event.text);
        this.atLineStart = event.text.endsWith("\n");
        return;
      case "stream_discarded":
        this.line(`[the response above was discarded: ${firstLine(event.reason, 100)}]`);
        return;
      case "tool_call":
        this.line(`→ ${event.summary}`);
        return;
      case "approval_decision":
        if (!event.approved) this.line(`  ✗ denied (${event.by}): ${firstLine(event.reason)}`);
        return;
      case "tool_result":
        if (event.status === "done") this.line(`  ✓ ${firstLine(event.content) || "done"}`);
        else if (event.status === "error") this.line(`  ✗ ${firstLine(event.content)}`);
        return;
      case "error":
        this.line(`✗ ${event.message}`);
        return;
      case "question":
        this.line(`? ${event.question}${event.options.length > 0 ? `\n  options: ${event.options.join(" | ")}` : ""}`);
        return;
      case "result": {
        const summary = `${event.num_turns} turn${event.num_turns === 1 ? "" : "s"}, ${event.usage.input_tokens + event.usage.cache_read_input_tokens + event.usage.cache_creation_input_tokens} in / ${event.usage.output_tokens} out tokens, ${dollars(event.total_cost_usd)}`;
        if (event.subtype === "success") this.line(`✓ completed (${summary})`);
        else if (event.subtype === "needs_input") this.line(`? waiting for ${event.plan ? "your approval of the plan" : "an answer"} (${summary})`);
        else this.line(`✗ ${event.result} (${summary})`);
        return;
      }
      default:
        return;
    }
  }
}
