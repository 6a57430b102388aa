import { createHash } from "node:crypto";
import type { AssistantMessage, Message, TextPart, ToolCallPart } from "../model/types.js";
import { thousands } from "../text/thousands.js";

/**
 * A call argument longer than this (characters) is "oversized": once the call has its result, the
 * file it carried is on disk (or the call failed), so history keeps a note instead of the text.
 */
export const oversizedArgumentChars = 8_000;

/** Values that carry file text in the xml protocol; other tags are short. */
const xmlTextTags = ["content", "diff"] as const;

function note(tool: string, key: string, value: string, path: string | undefined, failed: boolean): string {
  const hash = createHash("sha256").update(value).digest("hex").slice(0, 16);
  const target = path ? ` for ${path}` : "";
  const outcome = failed ? "the call failed" : "it was applied";
  const reread = path && !failed ? " Read the file if you need its text again." : "";
  return `[${tool} ${key}${target}: ${thousands(value.length)} characters, sha256 ${hash}…; ${outcome}, and the text was removed from history to save context.${reread}]`;
}

/** Ids of calls that have a result, and whether that result was an error. */
function answeredCalls(messages: readonly Message[]): Map<string, boolean> {
  const answered = new Map<string, boolean>();
  for (const message of messages) {
    if (message.role !== "user") continue;
    for (const part of message.content) if (part.type === "tool-result") answered.set(part.toolCallId, part.isError);
  }
  return answered;
}

function shrinkNativeCall(part: ToolCallPart, failed: boolean): ToolCallPart | undefined {
  const path = typeof part.input.path === "string" ? part.input.path : undefined;
  let changed = false;
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(part.input)) {
    if (typeof value === "string" && value.length > oversizedArgumentChars) {
      input[key] = note(part.name, key, value, path, failed);
      changed = true;
    } else {
      input[key] = value;
    }
  }
  return changed ? { ...part, input } : undefined;
}

/**
 * The xml protocol keeps calls in the assistant's text. A message whose text is followed by a
 * result (the next user message) had its calls answered; its oversized file-text values shrink.
 */
function shrinkXmlText(part: TextPart, failed: boolean): TextPart | undefined {
  if (part.text.length <= oversizedArgumentChars) return undefined;
  let text = part.text;
  let changed = false;
  for (const tag of xmlTextTags) {
    const open = `<${tag}>`;
    const close = `</${tag}>`;
    let from = 0;
    for (;;) {
      const start = text.indexOf(open, from);
      if (start < 0) break;
      const valueStart = start + open.length;
      // The value ends at the last closing tag before the next value of the same name (another call).
      const nextOpen = text.indexOf(open, valueStart);
      const end = text.lastIndexOf(close, (nextOpen < 0 ? text.length : nextOpen) - close.length);
      if (end < valueStart) break;
      const value = text.slice(valueStart, end);
      if (value.length <= oversizedArgumentChars) {
        from = end + close.length;
        continue;
      }
      const before = text.slice(0, start);
      const replacement = `${open}${note(enclosingTag(before) ?? "tool call", tag, value, lastPath(before), failed)}${close}`;
      text = `${before}${replacement}${text.slice(end + close.length)}`;
      from = start + replacement.length;
      changed = true;
    }
  }
  return changed ? { type: "text", text } : undefined;
}

/** The innermost tag still open at the end of `before`: the tool whose value follows. */
function enclosingTag(before: string): string | undefined {
  let open: string | undefined;
  for (const match of before.matchAll(/<([a-z_]+)>/g)) {
    if (!before.includes(`</${match[1]}>`, match.index + match[0].length)) open = match[1];
  }
  return open;
}

function lastPath(before: string): string | undefined {
  const paths = [...before.slice(-4_000).matchAll(/<path>([^<]*)<\/path>/g)];
  return paths.at(-1)?.[1];
}

/**
 * Replaces the oversized arguments of calls that already have their results (a 10 MB write) with a
 * short note: path, size and hash. Runs before compaction or truncation, so neither a summary
 * request nor a retry resends them. Returns the same array when nothing changed.
 */
export function shrinkAnsweredCalls(messages: Message[]): { messages: Message[]; shrunk: number } {
  const answered = answeredCalls(messages);
  let shrunk = 0;
  const out = messages.map((message, index): Message => {
    if (message.role !== "assistant") return message;
    const next = messages[index + 1];
    const xmlAnswered = next?.role === "user";
    const xmlFailed = xmlAnswered && next.content.some((p) => p.type === "text" && /^\[[^\]\n]*\] Error:/.test(p.text));
    let changed = false;
    const content = message.content.map((part) => {
      let replaced: AssistantMessage["content"][number] | undefined;
      if (part.type === "tool-call" && answered.has(part.id)) replaced = shrinkNativeCall(part, answered.get(part.id)!);
      else if (part.type === "text" && xmlAnswered) replaced = shrinkXmlText(part, xmlFailed);
      if (!replaced) return part;
      changed = true;
      shrunk++;
      return replaced;
    });
    return changed ? { role: "assistant", content } : message;
  });
  return shrunk === 0 ? { messages, shrunk } : { messages: out, shrunk };
}
