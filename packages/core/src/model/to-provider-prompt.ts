import type { LanguageModelV3Message, LanguageModelV3Prompt, SharedV3ProviderOptions } from "@ai-sdk/provider";
import type { Message, ToolResultPart } from "./types.js";

const ephemeral: SharedV3ProviderOptions = { anthropic: { cacheControl: { type: "ephemeral" } } };

/**
 * Converts Cairn's conversation to the AI SDK's provider prompt. With `cacheBreakpoints`,
 * Anthropic cache_control marks the system prompt and the last two user messages, so each turn
 * reads the prefix the previous turn wrote. Other providers ignore the marks.
 */
export function toProviderPrompt(system: string, messages: Message[], cacheBreakpoints: boolean): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  prompt.push(cacheBreakpoints ? { role: "system", content: system, providerOptions: ephemeral } : { role: "system", content: system });

  const userIndexes = messages.flatMap((m, i) => (m.role === "user" ? [i] : []));
  const cached = new Set(cacheBreakpoints ? userIndexes.slice(-2) : []);

  messages.forEach((message, index) => {
    const mark = cached.has(index);
    if (message.role === "assistant") {
      const content: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
      for (const part of message.content) {
        if (part.type === "text") {
          if (part.text.length > 0) content.push({ type: "text", text: part.text });
        } else if (part.type === "reasoning") {
          content.push({
            type: "reasoning",
            text: part.text,
            ...(part.signature ? { providerOptions: { anthropic: { signature: part.signature } } } : {}),
          });
        } else {
          content.push({ type: "tool-call", toolCallId: part.id, toolName: part.name, input: part.input });
        }
      }
      if (content.length === 0) content.push({ type: "text", text: "(no content)" });
      prompt.push({ role: "assistant", content });
      return;
    }
    const results = message.content.filter((p): p is ToolResultPart => p.type === "tool-result");
    if (results.length > 0) {
      prompt.push({
        role: "tool",
        content: results.map((r) => ({
          type: "tool-result" as const,
          toolCallId: r.toolCallId,
          toolName: r.toolName,
          output:
            r.content.every((c) => c.type === "text")
              ? { type: r.isError ? ("error-text" as const) : ("text" as const), value: r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n") }
              : {
                  type: "content" as const,
                  value: r.content.map((c) =>
                    c.type === "text" ? { type: "text" as const, text: c.text } : { type: "image-data" as const, data: c.data, mediaType: c.mediaType },
                  ),
                },
        })),
      });
    }
    const rest = message.content.filter((p) => p.type !== "tool-result");
    if (rest.length === 0) return;
    const content: Extract<LanguageModelV3Message, { role: "user" }>["content"] = rest.map((p) =>
      p.type === "text" ? { type: "text", text: p.text } : { type: "file", data: p.type === "image" ? p.data : "", mediaType: p.type === "image" ? p.mediaType : "" },
    );
    const last = content[content.length - 1];
    if (mark && last) last.providerOptions = ephemeral;
    prompt.push({ role: "user", content });
  });
  return prompt;
}
