import path from "node:path";
import type { SessionUpdate, ToolCallContent, ToolCallStatus as AcpStatus } from "@agentclientprotocol/sdk";
import type { ApprovalPreview, ToolCallStatus } from "@cairn/core";
import { conversationCalls, type ToolCard } from "@cairn/core/transcript";
import { acpToolKind } from "./tool-call-kind.js";

/**
 * The message a call that is the conversation itself says (a question with its options, a plan,
 * a completion, a remark while working: core's conversationCalls), "" when it says nothing, or
 * undefined for a call that is work, shown as a card.
 */
export function conversationMessage(name: string, input: Record<string, unknown>): string | undefined {
  if (!conversationCalls.has(name)) return undefined;
  const text = [input.result, input.question, input.response, input.message].find((v): v is string => typeof v === "string") ?? "";
  const options = Array.isArray(input.options) ? input.options.filter((o): o is string => typeof o === "string") : [];
  const body = options.length > 0 ? `${text}\n\n${options.map((o) => `- ${o}`).join("\n")}` : text;
  return body === "" ? "" : `\n\n${body}\n`;
}

/** A call's card as the editor first sees it (live: pending; replayed: as it ended). */
export function toolCallStart(card: ToolCard): Extract<SessionUpdate, { sessionUpdate: "tool_call" }> {
  return {
    sessionUpdate: "tool_call",
    toolCallId: card.tool_use_id,
    title: card.summary,
    kind: acpToolKind(card.name, card.input),
    status: "pending",
    locations: card.locations.map((p) => ({ path: p })),
    rawInput: card.input,
  };
}

/**
 * What a finished call shows: an applied edit as its diff, anything else as the text the model
 * got, with the new problems a language server found in its edits listed under it (in place of
 * the model's <new_problems> block). Nothing here re-reads files or recomputes diffs: the diff is
 * the preview core computed once, for its approval or, when none was asked, on running.
 */
export function endContent(card: ToolCard, cwd: string): ToolCallContent[] {
  const content = card.content ?? "";
  const problems = card.diagnostics.flatMap((d) => d.problems.map((p) => `${d.path}:${p.line}:${p.column} ${p.severity}${p.code ? ` ${p.code}` : ""}: ${p.message}`));
  const text =
    problems.length > 0
      ? [content.replace(/\n?<new_problems[^>]*>[\s\S]*?<\/new_problems>/g, ""), "", `${problems.length} new problem${problems.length === 1 ? "" : "s"}:`, ...problems].join("\n")
      : content;
  if (card.status === "completed" && card.preview?.type === "diff") return [diffContent(card.preview, cwd), textContent(text)];
  return [textContent(text)];
}

export function acpStatus(status: ToolCallStatus): AcpStatus {
  if (status === "pending" || status === "awaiting_approval") return "pending";
  if (status === "running") return "in_progress";
  return status === "completed" ? "completed" : "failed";
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

export function diffContent(preview: Extract<ApprovalPreview, { type: "diff" }>, cwd: string): ToolCallContent {
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
