import { allTools, XmlStreamParser, type AssistantContentJson, type XmlToolSpec } from "@cairn/core";

/** A stored assistant message as a person reads it: prose, and where each tool call was made. */
export type MessagePiece = { kind: "text"; text: string } | { kind: "call"; name: string; id?: string };

/** A call the task made, as its tool_call event tells it: enough to recognise its XML block. */
export type CalledTool = { name: string; input: Record<string, unknown> };

const builtInSpecs: readonly XmlToolSpec[] = allTools.map((tool) => ({ name: tool.name, params: Object.keys(tool.parameters.shape), rawParams: tool.rawParameters ?? [] }));

function specsFor(called: readonly CalledTool[]): XmlToolSpec[] {
  const specs = new Map(builtInSpecs.map((spec) => [spec.name, spec]));
  // Tools outside the built-in set (MCP's) are known from the calls the task made with them.
  for (const call of called) if (!specs.has(call.name)) specs.set(call.name, { name: call.name, params: Object.keys(call.input) });
  return [...specs.values()];
}

/**
 * The pieces of an assistant message in the order the model wrote them. Under the xml protocol
 * the message's text holds its tool calls as XML blocks (that text is what the model must see
 * again); the core's own parser cuts them out here, so a host shows prose and cards, never the
 * raw blocks. Native calls are their own parts already.
 */
export function messagePieces(content: readonly AssistantContentJson[], called: readonly CalledTool[] = []): MessagePiece[] {
  const pieces: MessagePiece[] = [];
  const addText = (text: string) => {
    if (text === "") return;
    const last = pieces.at(-1);
    if (last?.kind === "text") last.text += text;
    else pieces.push({ kind: "text", text });
  };
  let specs: XmlToolSpec[] | undefined;
  for (const part of content) {
    if (part.type === "tool_use") pieces.push({ kind: "call", name: part.name, id: part.id });
    if (part.type !== "text") continue;
    const parser = new XmlStreamParser((specs ??= specsFor(called)));
    for (const event of [...parser.push(part.text), ...parser.end()]) {
      if (event.type === "text") addText(event.text);
      else if (event.type === "tool-start") pieces.push({ kind: "call", name: event.name });
    }
  }
  return pieces;
}

/** Only the prose of a message, tool blocks cut out. */
export function messageProse(content: readonly AssistantContentJson[], called: readonly CalledTool[] = []): string {
  return messagePieces(content, called)
    .flatMap((piece) => (piece.kind === "text" ? [piece.text] : []))
    .join("");
}
