import type { AgentEvent, Message } from "@cairn/core";
import { withoutAddedContext } from "@cairn/core";
import type { WebEvent } from "./web-event.js";

type PersonMessage = Extract<WebEvent, { type: "web_user_message" }>;

/**
 * User messages the loop writes itself (a nudge, a cut-off reply, a lost reply after a crash):
 * they are not the person's, and never carry pictures.
 */
const loopTexts = ["[ERROR] You did not use a tool", "[Your reply was cut off by the output token limit", "[Your previous reply was lost when the task was interrupted"];

/**
 * The messages the person sent, as the stored conversation holds them: a user message with no
 * tool results that the loop did not write, with the pictures it carried (as the model got them).
 */
export function personMessages(messages: readonly Message[]): PersonMessage[] {
  const found: PersonMessage[] = [];
  for (const message of messages) {
    if (message.role !== "user" || message.content.some((p) => p.type === "tool-result")) continue;
    const images = message.content.filter((p) => p.type === "image").length;
    const raw = message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n\n");
    if (images === 0 && loopTexts.some((t) => raw.startsWith(t))) continue;
    found.push({ type: "web_user_message", text: withoutAddedContext(raw), ...(images > 0 ? { images } : {}) });
  }
  return found;
}

/** Where each run that took a message starts: its `system init`, when a turn followed it (a run refused at its opening never recorded one). */
function runStarts(events: readonly AgentEvent[]): number[] {
  const starts: number[] = [];
  let open: number | undefined;
  events.forEach((event, i) => {
    if (event.type === "system" && event.subtype === "init") open = i;
    else if (event.type === "result") open = undefined;
    else if (event.type === "turn_start" && open !== undefined) {
      starts.push(open);
      open = undefined;
    }
  });
  return starts;
}

/**
 * A stored task's journal with the person's messages put back where each run began, so a task
 * opened from the store shows what was asked and how many pictures went with it, as it showed
 * live. The journal records no user messages; the conversation does, in order, one per run.
 *
 * When the counts differ the conversation was rewritten (compacted, or cut back to a checkpoint):
 * the opening message survives both, so it goes with the first run, and the messages after it
 * are the latest runs', so they pair from the end. Runs left without one show none.
 */
export function withPersonMessages(events: readonly AgentEvent[], messages: readonly Message[]): Array<AgentEvent | WebEvent> {
  const said = personMessages(messages);
  const starts = runStarts(events);
  const at = new Map<number, PersonMessage>();
  if (said.length === starts.length) starts.forEach((start, i) => at.set(start, said[i]!));
  else if (said.length > 0 && starts.length > 0) {
    at.set(starts[0]!, said[0]!);
    const rest = said.slice(1);
    const later = starts.slice(1);
    for (let k = 1; k <= Math.min(rest.length, later.length); k++) at.set(later[later.length - k]!, rest[rest.length - k]!);
  }
  return events.flatMap((event, i) => {
    const message = at.get(i);
    return message ? [message, event] : [event];
  });
}
