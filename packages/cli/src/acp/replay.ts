import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Message, ToolResultPart } from "@cairn/core";
import { conversationMessage, textContent } from "./session-updates.js";
import { acpToolKind } from "./tool-call-kind.js";
import { withoutAddedContext } from "../stop-note.js";

/**
 * A stored conversation as the updates an editor would have seen live: the person's words, the
 * agent's text and reasoning, each tool call with how it ended. What Cairn added for the model
 * (environment details, expanded mentions' file bodies stay) is left out of the person's words.
 */
export function replayUpdates(messages: readonly Message[]): SessionUpdate[] {
  const results = new Map<string, ToolResultPart>();
  for (const message of messages) {
    if (message.role !== "user") continue;
    for (const part of message.content) if (part.type === "tool-result") results.set(part.toolCallId, part);
  }
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      const text = message.content
        .map((part) => (part.type === "text" ? withoutAddedContext(part.text) : ""))
        .filter((t) => t !== "")
        .join("\n\n");
      if (text !== "") updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
      continue;
    }
    for (const part of message.content) {
      if (part.type === "text" && part.text.trim() !== "") updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } });
      if (part.type === "reasoning" && part.text.trim() !== "") updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: part.text } });
      if (part.type !== "tool-call") continue;
      const said = conversationMessage(part.name, part.input);
      if (said !== undefined) {
        if (said !== "") updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: said } });
        continue;
      }
      const result = results.get(part.id);
      const output = result?.content.map((c) => (c.type === "text" ? c.text : "[image]")).join("\n") ?? "";
      updates.push({
        sessionUpdate: "tool_call",
        toolCallId: part.id,
        title: summaryOf(part.name, part.input),
        kind: acpToolKind(part.name, part.input),
        status: result === undefined ? "failed" : result.isError ? "failed" : "completed",
        rawInput: part.input,
        content: [textContent(result === undefined ? "(no result was recorded)" : output)],
      });
    }
  }
  return updates;
}

function summaryOf(name: string, input: Record<string, unknown>): string {
  const target = [input.path, input.command, input.url, input.regex].find((v): v is string => typeof v === "string");
  return target === undefined ? name : `${name} ${target}`;
}
