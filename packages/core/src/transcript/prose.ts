import type { AssistantContentJson } from "../events/agent-event.js";

/**
 * The prose of a complete message: its text without the tool calls written in it as XML blocks
 * (the xml protocol, or calls a model wrote as text under the native one), which are shown as
 * cards. `called`: the names of the calls the message made, in order; each block is cut where
 * its call's opening tag starts, up to its closing tag. What streamed live was the same prose
 * (the parser sends no block as text); a replayed message has only this.
 */
export function messageProse(content: readonly AssistantContentJson[], called: readonly string[]): string {
  let text = content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  let from = 0;
  for (const name of called) {
    const open = text.indexOf(`<${name}>`, from);
    if (open === -1) continue;
    const closeTag = `</${name}>`;
    const close = text.indexOf(closeTag, open);
    // A block the stream cut off runs to the end of the text.
    const end = close === -1 ? text.length : close + closeTag.length;
    text = text.slice(0, open) + text.slice(end);
    from = open;
  }
  return text;
}

/** The thinking a message shows (redacted blocks have none to show). */
export function messageReasoning(content: readonly AssistantContentJson[]): string {
  return content.flatMap((part) => (part.type === "thinking" ? [part.thinking] : [])).join("");
}
