import type { AssistantContentJson } from "../events/agent-event.js";

/**
 * The prose of a complete message: its text without the tool calls written in it as XML blocks
 * (the xml protocol, or calls a model wrote as text under the native one), which are shown as
 * cards. `called`: the names of the calls the message made, in order; each block is cut where
 * its call's opening tag starts, up to its closing tag. What streamed live was the same prose
 * (the parser sends no block as text); a replayed message has only this.
 */
export function messageProse(content: readonly AssistantContentJson[], called: readonly string[]): string {
  let text = textOf(content);
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

/**
 * A message's text parts as one text. Parts a native call came between are separate paragraphs
 * ("Reading a." then a call then "Now b."), so they are a blank line apart; parts that only
 * continue one another (an output limit's continuation) are joined as they are.
 */
function textOf(content: readonly AssistantContentJson[]): string {
  let text = "";
  let called = false;
  for (const part of content) {
    if (part.type === "tool_use") called = true;
    if (part.type !== "text" || part.text === "") continue;
    if (called && text.trim() !== "") text = `${text.replace(/\n*$/, "")}\n\n${part.text.replace(/^\n*/, "")}`;
    else text += part.text;
    called = false;
  }
  return text;
}

/** The thinking a message shows (redacted blocks have none to show). */
export function messageReasoning(content: readonly AssistantContentJson[]): string {
  return content.flatMap((part) => (part.type === "thinking" ? [part.thinking] : [])).join("");
}
