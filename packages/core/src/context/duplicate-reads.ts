import type { Message, ToolResultPart, UserMessage } from "../model/types.js";

const xmlReadLabel = /^\[read_file for '([^']*)'\] Result:\n/;

function replacement(path: string): string {
  return `[An earlier read of ${path} was removed to save context: the file was read again later; see the newer result.]`;
}

type Found = { message: number; part: number; key: string; path: string };

/** Where each read_file result sits, keyed by what was read (path and line range). */
function findReads(messages: readonly Message[]): Found[] {
  const inputs = new Map<string, Record<string, unknown>>();
  const found: Found[] = [];
  messages.forEach((message, m) => {
    if (message.role === "assistant") {
      for (const part of message.content) if (part.type === "tool-call") inputs.set(part.id, part.input);
      return;
    }
    message.content.forEach((part, p) => {
      if (part.type === "tool-result" && part.toolName === "read_file" && !part.isError) {
        const input = inputs.get(part.toolCallId) ?? {};
        const path = String(input.path ?? "");
        found.push({ message: m, part: p, path, key: `${path}|${String(input.start_line ?? "")}|${String(input.end_line ?? "")}` });
      } else if (part.type === "text") {
        const match = xmlReadLabel.exec(part.text);
        if (match) found.push({ message: m, part: p, path: match[1]!, key: `${match[1]}|xml` });
      }
    });
  });
  return found;
}

/**
 * Replaces every read_file result that a later read of the same file (and range) supersedes with a
 * one-line note. Returns the same array when nothing changed; changed messages are new objects.
 */
export function replaceDuplicateReads(messages: Message[]): { messages: Message[]; replaced: number } {
  const reads = findReads(messages);
  const latest = new Map<string, Found>();
  for (const read of reads) latest.set(read.key, read);
  const stale = reads.filter((r) => latest.get(r.key) !== r);
  const alreadyReplaced = (r: Found) => {
    const part = messages[r.message]!.content[r.part]!;
    const text = part.type === "text" ? part.text : part.type === "tool-result" ? (part.content[0]?.type === "text" ? part.content[0].text : "") : "";
    return text.includes("was removed to save context");
  };
  const todo = stale.filter((r) => !alreadyReplaced(r));
  if (todo.length === 0) return { messages, replaced: 0 };

  const out = [...messages];
  for (const r of todo) {
    const message = out[r.message] as UserMessage;
    const content = [...message.content];
    const part = content[r.part]!;
    if (part.type === "tool-result") {
      content[r.part] = { ...part, content: [{ type: "text", text: replacement(r.path) }] } satisfies ToolResultPart;
    } else if (part.type === "text") {
      content[r.part] = { type: "text", text: `[read_file for '${r.path}'] Result:\n${replacement(r.path)}` };
    }
    out[r.message] = { role: "user", content };
  }
  return { messages: out, replaced: todo.length };
}
