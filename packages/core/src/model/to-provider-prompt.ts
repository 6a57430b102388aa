import type { JSONValue, LanguageModelV3Message, LanguageModelV3Prompt, SharedV3ProviderOptions } from "@ai-sdk/provider";
import { wireCallIds } from "./call-ids.js";
import { fitImage, type ImageLimits } from "./image-limits.js";
import { reasoningDetailsMark, redactedThinkingMark, type ImagePart, type Message, type TextPart, type ToolResultPart, type UserMessage } from "./types.js";

const ephemeral: SharedV3ProviderOptions = { anthropic: { cacheControl: { type: "ephemeral" } } };

export type PromptOptions = {
  /**
   * The Anthropic Messages wire: cache_control marks the system prompt and the last two user
   * messages, so each turn reads the prefix the previous turn wrote; images stay inside tool
   * results, which that wire accepts.
   */
  anthropic: boolean;
  /** The model takes images; when it does not, each image becomes a one-line note. */
  images: boolean;
  /**
   * The OpenAI-compatible wire (OpenRouter): a reply's `reasoning_details` go back on its assistant
   * message unchanged, as OpenRouter requires to continue the reasoning (a signed Claude block, an
   * encrypted OpenAI one); without them the model starts its reasoning over, or the request fails.
   */
  reasoningDetails?: boolean;
  /** The provider's image limits: a larger image is scaled down, or left out with a note (image-limits.ts). */
  imageLimits?: ImageLimits;
};

type UserContent = Extract<LanguageModelV3Message, { role: "user" }>["content"];

/** What stands in for an image a text-only model cannot take: one line, never the base64. */
const imageLeftOut = (image: ImagePart): TextPart => ({ type: "text", text: `[An image (${image.mediaType}) was left out: this model does not take images.]` });

/**
 * Converts Cairn's conversation to the AI SDK's provider prompt.
 *
 * Images in tool results: the Chat Completions wire takes only text in a `tool` message (the SDK
 * would send the image as a JSON string of base64, ~97,000 characters of text for a screenshot,
 * which the model pays for and cannot see). There the tool message keeps the result's text and a
 * note, and the images follow in a user message, as image parts the model sees.
 */
export function toProviderPrompt(system: string, messages: Message[], wire: PromptOptions | boolean): LanguageModelV3Prompt {
  // A bare boolean is the Anthropic wire's cache breakpoints, for a model that takes images.
  const options = typeof wire === "boolean" ? { anthropic: wire, images: true } : wire;
  const cacheBreakpoints = options.anthropic;
  const prompt: LanguageModelV3Prompt = [];
  prompt.push(cacheBreakpoints ? { role: "system", content: system, providerOptions: ephemeral } : { role: "system", content: system });

  if (options.images && options.imageLimits) messages = messages.map((m) => withFittedImages(m, options.imageLimits!));
  const userIndexes = messages.flatMap((m, i) => (m.role === "user" ? [i] : []));
  const cached = new Set(cacheBreakpoints ? userIndexes.slice(-2) : []);
  // Calls go to the provider under its own ids; Cairn's stay on this side of the wire.
  const wireIds = wireCallIds(messages, options.anthropic);
  const wireId = (id: string) => wireIds.get(id) ?? id;

  messages.forEach((message, index) => {
    const mark = cached.has(index);
    if (message.role === "assistant") {
      const content: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
      const details: JSONValue[] = [];
      for (const part of message.content) {
        if (part.type === "text") {
          if (part.text.length > 0) content.push({ type: "text", text: part.text });
        } else if (part.type === "reasoning" && part.signature?.startsWith(reasoningDetailsMark)) {
          // Meaningful only to the wire that sent them; elsewhere they are left out.
          if (options.reasoningDetails) details.push(...parseDetails(part.signature.slice(reasoningDetailsMark.length)));
        } else if (part.type === "reasoning") {
          if (part.signature?.startsWith(redactedThinkingMark)) {
            // Only the Anthropic wire can take a redacted block back; elsewhere it means nothing.
            const redactedData = part.signature.slice(redactedThinkingMark.length);
            if (options.anthropic) content.push({ type: "reasoning", text: "", providerOptions: { anthropic: { redactedData } } });
            continue;
          }
          content.push({
            type: "reasoning",
            text: part.text,
            ...(part.signature ? { providerOptions: { anthropic: { signature: part.signature } } } : {}),
          });
        } else {
          content.push({ type: "tool-call", toolCallId: wireId(part.id), toolName: part.name, input: part.input });
        }
      }
      if (content.length === 0) content.push({ type: "text", text: "(no content)" });
      // The compatible SDK spreads the message's openaiCompatible options into the message it sends.
      prompt.push(details.length > 0 ? { role: "assistant", content, providerOptions: { openaiCompatible: { reasoning_details: details } } } : { role: "assistant", content });
      return;
    }
    const results = message.content
      .filter((p): p is ToolResultPart => p.type === "tool-result")
      .map((r) => (options.images ? r : { ...r, content: r.content.map((c) => (c.type === "image" ? imageLeftOut(c) : c)) }));
    // Images that travel after the tool message, on the wires whose tool messages take only text.
    const moved: UserContent = [];
    if (results.length > 0) {
      prompt.push({
        role: "tool",
        content: results.map((r) => {
          const texts = r.content.filter((c): c is TextPart => c.type === "text").map((c) => c.text);
          const images = r.content.filter((c): c is ImagePart => c.type === "image");
          const base = { type: "tool-result" as const, toolCallId: wireId(r.toolCallId), toolName: r.toolName };
          if (images.length === 0) return { ...base, output: { type: r.isError ? ("error-text" as const) : ("text" as const), value: texts.join("\n") } };
          if (!options.anthropic) {
            const count = images.length === 1 ? "The image" : `The ${images.length} images`;
            moved.push({ type: "text", text: `${count} from the ${r.toolName} result (${base.toolCallId}):` });
            for (const image of images) moved.push({ type: "file", data: image.data, mediaType: image.mediaType });
            const note = images.length === 1 ? "[The image of this result is in the next user message.]" : `[The ${images.length} images of this result are in the next user message.]`;
            return { ...base, output: { type: r.isError ? ("error-text" as const) : ("text" as const), value: [...texts, note].join("\n") } };
          }
          return {
            ...base,
            output: {
              type: "content" as const,
              value: r.content.map((c) =>
                c.type === "text" ? { type: "text" as const, text: c.text } : { type: "image-data" as const, data: c.data, mediaType: c.mediaType },
              ),
            },
          };
        }),
      });
    }
    const rest = message.content.filter((p) => p.type !== "tool-result");
    const content: UserContent = [
      ...moved,
      ...rest.map((p): UserContent[number] =>
        p.type === "text"
          ? { type: "text", text: p.text }
          : p.type === "image" && !options.images
            ? imageLeftOut(p)
            : { type: "file", data: p.type === "image" ? p.data : "", mediaType: p.type === "image" ? p.mediaType : "" },
      ),
    ];
    if (content.length === 0) return;
    const last = content[content.length - 1];
    if (mark && last) last.providerOptions = ephemeral;
    prompt.push({ role: "user", content });
  });
  return prompt;
}

/** The details as stored: a JSON array; anything else (a damaged journal) is left out rather than sent. */
function parseDetails(json: string): JSONValue[] {
  try {
    const value: JSONValue = JSON.parse(json);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/** A user message whose images (its own and its tool results') are each within the provider's limits. */
function withFittedImages(message: Message, limits: ImageLimits): Message {
  if (message.role !== "user") return message;
  const fit = (part: TextPart | ImagePart): Array<TextPart | ImagePart> => (part.type === "image" ? fitImage(part, limits) : [part]);
  const content: UserMessage["content"] = message.content.flatMap((part): UserMessage["content"] =>
    part.type === "tool-result" ? [{ ...part, content: part.content.flatMap(fit) }] : fit(part),
  );
  return { role: "user", content };
}
