import type { ScriptedStopReason, ScriptedTurn, Wire } from "./types.js";

/**
 * A turn resolved against one request: ids, model, usage and stop reason fixed, and every piece of
 * content already split into the deltas the wire will send. Both wires encode the same plan, so a
 * turn means the same thing whichever SDK is talking to the server.
 */
export type TurnPlan = {
  requestNumber: number;
  model: string;
  blocks: PlannedBlock[];
  stopReason: ScriptedStopReason;
  stopSequence: string | null;
  usage: Required<NonNullable<ScriptedTurn["usage"]>>;
};

export type PlannedBlock =
  | { type: "text"; text: string; pieces: string[] }
  | { type: "thinking"; text: string; pieces: string[]; signature: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown>; json: string; pieces: string[] };

/** One separate socket write. `contentChars` counts content characters it carries (for cutAfterChars). */
export type SseFrame = { text: string; contentChars: number; final: boolean };

export type PlanContext = {
  wire: Wire;
  requestNumber: number;
  body: Record<string, unknown>;
  bodyChars: number;
};

const defaultChunkSize = 20;

export function planTurn(turn: ScriptedTurn, context: PlanContext): TurnPlan {
  const chunkSize = turn.chunkSize ?? defaultChunkSize;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new Error(`chunkSize must be a positive integer, got ${chunkSize}; fix the scripted turn`);
  }
  const splitter = new PieceSplitter(chunkSize, turn.cutAfterChars);
  const content = turn.content ?? [];
  const blocks = content.map((item, index): PlannedBlock => {
    switch (item.type) {
      case "text":
        return { type: "text", text: item.text, pieces: splitter.split(item.text) };
      case "thinking":
        return { type: "thinking", text: item.text, pieces: splitter.split(item.text), signature: signatureFor(item.text) };
      case "tool_use": {
        const json = item.inputJson ?? JSON.stringify(item.input);
        const id = item.id ?? generatedToolCallId(context, index);
        return { type: "tool_use", id, name: item.name, input: item.input, json, pieces: splitter.split(json) };
      }
    }
  });
  const stopReason = turn.stopReason ?? (content.some((item) => item.type === "tool_use") ? "tool_use" : "end_turn");
  return {
    requestNumber: context.requestNumber,
    model: typeof context.body.model === "string" ? context.body.model : "scripted-model",
    blocks,
    stopReason,
    stopSequence: stopReason === "stop_sequence" ? firstStopSequence(context.body) : null,
    usage: {
      input_tokens: turn.usage?.input_tokens ?? Math.ceil(context.bodyChars / 4),
      output_tokens: turn.usage?.output_tokens ?? Math.max(1, Math.ceil(splitter.totalChars / 4)),
      cache_read_input_tokens: turn.usage?.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: turn.usage?.cache_creation_input_tokens ?? 0,
      reasoning_tokens: turn.usage?.reasoning_tokens ?? 0,
    },
  };
}

/**
 * Splits content into pieces of `chunkSize` characters (code points, so no delta ends inside a
 * surrogate pair), and also at the cut point, so a cut stream delivers exactly `cutAfterChars`.
 */
class PieceSplitter {
  totalChars = 0;

  constructor(
    private readonly chunkSize: number,
    private readonly cutAt: number | undefined,
  ) {}

  split(text: string): string[] {
    const chars = Array.from(text);
    const pieces: string[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = Math.min(chars.length, start + this.chunkSize);
      const cutLocal = this.cutAt === undefined ? -1 : this.cutAt - this.totalChars;
      if (cutLocal > start && cutLocal < end) end = cutLocal;
      pieces.push(chars.slice(start, end).join(""));
      start = end;
    }
    this.totalChars += chars.length;
    return pieces;
  }
}

export function charCount(text: string): number {
  return Array.from(text).length;
}

function generatedToolCallId(context: PlanContext, blockIndex: number): string {
  const prefix = context.wire === "anthropic" ? "toolu_scripted" : "call_scripted";
  return `${prefix}_${context.requestNumber}_${blockIndex}`;
}

function signatureFor(text: string): string {
  return Buffer.from(`scripted-signature:${charCount(text)}`).toString("base64");
}

function firstStopSequence(body: Record<string, unknown>): string | null {
  const sequences = body.stop_sequences ?? body.stop;
  if (typeof sequences === "string") return sequences;
  if (Array.isArray(sequences) && typeof sequences[0] === "string") return sequences[0];
  return null;
}
