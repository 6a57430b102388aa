import path from "node:path";
import type { SessionUpdate, ToolCallContent, ToolCallStatus as AcpStatus } from "@agentclientprotocol/sdk";
import { applyToolCallEvent, type AgentEvent, type ApprovalPreview, type ToolCallRecord, type ToolCallStatus } from "@cairn/core";
import { acpToolKind } from "./tool-call-kind.js";

/**
 * Turns the AgentEvent stream of one session into ACP `session/update`s. The tool calls' life comes
 * from core's reducer (applyToolCallEvent); nothing here re-reads files or recomputes diffs: an
 * edit's diff is the preview core computed once, for its approval or, when none was asked, on running.
 */
export class SessionUpdates {
  /**
   * `cwd`: the workspace, against which core's workspace-relative preview paths are made absolute
   * (ACP wants absolute paths). `notices`: the editor shows notices (else they stay in its log).
   */
  constructor(
    private readonly cwd: string,
    private readonly notices = false,
  ) {}

  private calls: ReadonlyMap<string, ToolCallRecord> = new Map();
  /** The preview each call carried (on its approval or its running update), shown again with its result. */
  private readonly previews = new Map<string, ApprovalPreview>();
  /** The new problems a language server found in each call's edits, shown under its result. */
  private readonly problems = new Map<string, string[]>();

  map(event: AgentEvent): SessionUpdate[] {
    this.calls = applyToolCallEvent(this.calls, event);
    switch (event.type) {
      case "text_delta":
        return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } }];
      case "reasoning_delta":
        return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } }];
      case "task_progress": {
        // The focus chain's checklist as the editor's plan: the first open item is the one in progress.
        const current = event.items.findIndex((item) => !item.done);
        return [
          {
            sessionUpdate: "plan",
            entries: event.items.map((item, i) => ({ content: item.text, priority: "medium" as const, status: item.done ? ("completed" as const) : i === current ? ("in_progress" as const) : ("pending" as const) })),
          },
        ];
      }
      case "system":
        if (event.subtype === "mode") return [{ sessionUpdate: "current_mode_update", currentModeId: event.mode }];
        if (event.subtype === "notice" && this.notices) return [{ sessionUpdate: "notice", severity: event.level, title: event.message }];
        return [];
      case "tool_call": {
        const message = conversationMessage(event.name, event.input);
        if (message !== undefined) return message === "" ? [] : [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: message } }];
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: event.tool_use_id,
            title: event.summary,
            kind: acpToolKind(event.name, event.input),
            status: "pending",
            locations: event.locations.map((path) => ({ path })),
            rawInput: event.input,
          },
        ];
      }
      case "diagnostics": {
        const lines = this.problems.get(event.tool_use_id) ?? [];
        for (const p of event.problems) lines.push(`${event.path}:${p.line}:${p.column} ${p.severity}${p.code ? ` ${p.code}` : ""}: ${p.message}`);
        this.problems.set(event.tool_use_id, lines);
        return [];
      }
      case "tool_output": {
        const record = this.calls.get(event.tool_use_id);
        if (!record) return [];
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.tool_use_id, status: "in_progress", content: [textContent(record.output)] }];
      }
      case "tool_call_update": {
        if (hiddenTools.has(event.name)) return [];
        if (event.status === "awaiting_approval") {
          if (event.approval.preview) this.previews.set(event.tool_use_id, event.approval.preview);
          return [{ sessionUpdate: "tool_call_update", toolCallId: event.tool_use_id, status: "pending", content: previewContent(event.approval.preview, event.approval.summary, this.cwd) }];
        }
        if (event.status === "running") {
          // An edit run without asking: its diff shows while it runs, as an approved one's did while asked.
          if (event.preview) this.previews.set(event.tool_use_id, event.preview);
          const content = event.preview?.type === "diff" ? { content: [diffContent(event.preview, this.cwd)] } : {};
          return [{ sessionUpdate: "tool_call_update", toolCallId: event.tool_use_id, status: "in_progress", ...content }];
        }
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.tool_use_id, status: acpStatus(event.status), content: this.endContent(event.tool_use_id, event.status, event.content) }];
      }
      default:
        return [];
    }
  }

  /** What a finished call shows: an applied edit as its diff, anything else as the text the model got. */
  private endContent(id: string, status: ToolCallStatus, content: string): ToolCallContent[] {
    const preview = this.previews.get(id);
    this.previews.delete(id);
    const problems = this.problems.get(id);
    this.problems.delete(id);
    // The model's copy of the problems (<new_problems>) becomes a list the person reads under the diff.
    const text = problems ? [content.replace(/\n?<new_problems[^>]*>[\s\S]*?<\/new_problems>/g, ""), "", `${problems.length} new problem${problems.length === 1 ? "" : "s"}:`, ...problems].join("\n") : content;
    if (status === "completed" && preview?.type === "diff") return [diffContent(preview, this.cwd), textContent(text)];
    return [textContent(text)];
  }
}

/**
 * Calls that are the conversation itself, not work to show as a card: a question (with its
 * options), a plan, a completion, a remark while working reach the editor as the agent's message.
 */
const hiddenTools = new Set(["ask_followup_question", "attempt_completion", "plan_mode_respond", "act_mode_respond"]);

/** The message such a call says ("" when it says nothing), or undefined for a call that is work. */
export function conversationMessage(name: string, input: Record<string, unknown>): string | undefined {
  if (!hiddenTools.has(name)) return undefined;
  const text = [input.result, input.question, input.response, input.message].find((v): v is string => typeof v === "string") ?? "";
  const options = Array.isArray(input.options) ? input.options.filter((o): o is string => typeof o === "string") : [];
  const body = options.length > 0 ? `${text}\n\n${options.map((o) => `- ${o}`).join("\n")}` : text;
  return body === "" ? "" : `\n\n${body}\n`;
}

export function acpStatus(status: ToolCallStatus): AcpStatus {
  if (status === "pending" || status === "awaiting_approval") return "pending";
  if (status === "running") return "in_progress";
  return status === "completed" ? "completed" : "failed";
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

function diffContent(preview: Extract<ApprovalPreview, { type: "diff" }>, cwd: string): ToolCallContent {
  return { type: "diff", path: path.resolve(cwd, preview.path), oldText: preview.old_text, newText: preview.new_text };
}

/** What the person must see to decide: the diff, the exact command and its verdict, the URL, the MCP call. */
export function previewContent(preview: ApprovalPreview | undefined, summary: string, cwd: string): ToolCallContent[] {
  if (!preview) return [textContent(summary)];
  switch (preview.type) {
    case "diff":
      return [diffContent(preview, cwd)];
    case "diff_unavailable":
      return [textContent(preview.reason)];
    case "command": {
      const sandbox = preview.sandbox.mode === "off" ? `no sandbox (${preview.sandbox.reason})` : `sandbox: ${preview.sandbox.mode}, network ${preview.sandbox.network}`;
      const reasons = preview.reasons.length > 0 ? `\n${preview.reasons.map((r) => `- ${r}`).join("\n")}` : "";
      return [textContent(`$ ${preview.command}\nin ${preview.cwd}\n${sandbox}${reasons}`)];
    }
    case "browser":
      return [textContent(`${preview.action}${preview.url ? ` ${preview.url}` : ""}`)];
    case "mcp":
      return [textContent(`${preview.server} / ${preview.tool}\n${JSON.stringify(preview.arguments, null, 2)}`)];
    case "paths":
      return [textContent(`${summary}\n${preview.paths.join("\n")}`)];
  }
}
