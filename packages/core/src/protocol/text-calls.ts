import type { AnyTool } from "../tools/tool.js";
import { boundedCall, paramChars } from "./argument-shape.js";
import { coerceXmlParams } from "./coerce.js";
import { takeTaskProgress } from "./task-progress.js";
import type { ParsedCall } from "./types.js";
import { ambiguityError } from "./xml/ambiguity-error.js";
import { XmlStreamParser, type XmlParseEvent } from "./xml/stream-parser.js";
import { xmlSpec } from "./xml/xml-protocol.js";

const TAG_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** What the model is told after calls it wrote as XML were run. */
export function textCallNote(names: readonly string[]): string {
  const tags = [...new Set(names)].map((n) => `<${n}>`).join(", ");
  return `[You wrote ${tags} as XML in your reply instead of calling the tool. It ran this time, but this session uses function calling: call tools as function calls, never as XML in your text.]`;
}

/**
 * Tool calls a model wrote as XML in its text while native function calling was on (models
 * trained on Cline's format do). The text is read by the xml protocol's parser alongside the
 * stream, so it costs one more linear pass; only complete blocks of offered tools count, outside
 * code: a block in a fenced code block or inline code is an example, not a call.
 */
export class TextCalls {
  private readonly parser: XmlStreamParser;
  private readonly byName: Map<string, AnyTool>;
  private readonly ends: Array<Extract<XmlParseEvent, { type: "tool-end" }>> = [];

  constructor(
    tools: readonly AnyTool[],
    private readonly messageId: string,
  ) {
    // MCP tools carry their own JSON schema (and names XML may not allow): leave them out.
    const xmlTools = tools.filter((t) => t.inputJsonSchema === undefined && [t.name, ...Object.keys(t.parameters.shape)].every((n) => TAG_NAME.test(n)));
    this.parser = new XmlStreamParser(xmlTools.map(xmlSpec));
    this.byName = new Map(xmlTools.map((t) => [t.name, t]));
  }

  push(text: string): void {
    this.keep(this.parser.push(text));
  }

  /** The calls found, in order; each with a generated id. */
  end(): ParsedCall[] {
    this.keep(this.parser.end());
    return this.ends.flatMap((e): ParsedCall[] => {
      const tool = this.byName.get(e.name);
      if (!tool || e.truncated || e.fenced) return [];
      const { input: params, taskProgress } = takeTaskProgress(e.params);
      const input = coerceXmlParams(tool.parameters, params as Record<string, string>);
      const call: ParsedCall = {
        id: `${this.messageId}_text_${e.index}`,
        name: e.name,
        input,
        fromText: true,
        ...(taskProgress ? { taskProgress } : {}),
        ...(e.ambiguous ? { inputError: ambiguityError(e.name, e.ambiguous) } : {}),
      };
      return [boundedCall(call, paramChars(e.params))];
    });
  }

  private keep(events: readonly XmlParseEvent[]): void {
    for (const e of events) if (e.type === "tool-end") this.ends.push(e);
  }
}
