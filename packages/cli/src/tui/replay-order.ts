import type { AgentEvent } from "@cairn/core";
import { messagePieces, type CalledTool } from "./message-pieces.js";

type AssistantEvent = Extract<AgentEvent, { type: "assistant" }>;

/** The call an event belongs to, if it belongs to one. */
function callIdOf(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "tool_call_delta":
      return event.id;
    case "tool_call":
    case "tool_call_update":
    case "tool_output":
    case "edit_preview":
    case "diagnostics":
      return event.tool_use_id;
    case "subagent":
      return event.parent_tool_use_id;
    default:
      return undefined;
  }
}

/**
 * A turn's events in the order the person saw them live. A stored turn has no text deltas, and
 * its `assistant` message is recorded after its calls ran, so replayed as stored every card would
 * come before the prose that introduced it. Here the message's prose is put back between the
 * calls, as text_delta events, each call's events after the prose that came before it.
 */
function turnInOrder(turn: AgentEvent[], assistant: AssistantEvent): AgentEvent[] {
  const before: AgentEvent[] = [];
  const groups = new Map<string, { name: string; events: AgentEvent[] }>();
  let current: AgentEvent[] = before;
  const called: CalledTool[] = [];
  for (const event of turn) {
    const id = callIdOf(event);
    if (id !== undefined) {
      let group = groups.get(id);
      if (!group) {
        group = { name: event.type === "tool_call" ? event.name : "", events: [] };
        groups.set(id, group);
      }
      if (event.type === "tool_call") called.push({ name: event.name, input: event.input });
      current = group.events;
    }
    // What is not a call's own (a notice, a checkpoint) stays after the call it followed.
    current.push(event);
  }

  const out: AgentEvent[] = [...before];
  const shown = new Set<string>();
  const take = (id: string | undefined) => {
    if (id === undefined || shown.has(id)) return;
    shown.add(id);
    out.push(...groups.get(id)!.events);
  };
  for (const piece of messagePieces(assistant.message.content, called)) {
    if (piece.kind === "text") {
      out.push({ type: "text_delta", message_id: assistant.message.id, text: piece.text });
      continue;
    }
    // Native calls carry their id; xml blocks are matched to the calls in the order they ran.
    const id = piece.id !== undefined && groups.has(piece.id) ? piece.id : [...groups].find(([key, group]) => !shown.has(key) && group.name === piece.name)?.[0];
    take(id);
  }
  for (const id of groups.keys()) take(id);
  out.push(assistant);
  return out;
}

/** Stored events reordered for replay: within each turn, prose before the cards it introduced. */
export function replayOrder(events: readonly AgentEvent[]): AgentEvent[] {
  const out: AgentEvent[] = [];
  // Events before the first turn_start (a window cut from a longer record) may end a turn too.
  let turn: AgentEvent[] = [];
  for (const event of events) {
    if (event.type === "turn_start") {
      out.push(...turn, event);
      turn = [];
    } else if (event.type === "assistant") {
      out.push(...turnInOrder(turn, event));
      turn = [];
    } else if (turn.length > 0 || callIdOf(event) !== undefined) {
      turn.push(event);
    } else {
      out.push(event);
    }
  }
  out.push(...turn);
  return out;
}
