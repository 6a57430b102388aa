import type { AssistantMessage, ModelEvent, ReasoningPart, UserMessage } from "../../model/types.js";
import { parameterLines } from "../../tools/describe-parameters.js";
import type { AnyTool } from "../../tools/tool.js";
import { boundedCall, paramChars } from "../argument-shape.js";
import { coerceXmlParams } from "../coerce.js";
import { splitDescription } from "../../tools/describe-tool.js";
import { toolResultText } from "../result-text.js";
import { takeTaskProgress, taskProgressParam } from "../task-progress.js";
import type { CallOutcome, ParsedCall, ProtocolEvent, ToolProtocol, TurnParser } from "../types.js";
import { ambiguityError } from "./ambiguity-error.js";
import { XmlStreamParser, type XmlParseEvent, type XmlToolSpec } from "./stream-parser.js";

/** Every tool's parameters, and task_progress (the focus chain's checklist, taken out before validation). */
export function xmlSpec(tool: AnyTool): XmlToolSpec {
  return { name: tool.name, params: [...Object.keys(tool.parameters.shape), taskProgressParam], rawParams: tool.rawParameters ?? [] };
}

class XmlTurnParser implements TurnParser {
  text = "";
  private readonly parser: XmlStreamParser;
  private readonly byName: Map<string, AnyTool>;

  constructor(
    tools: readonly AnyTool[],
    private readonly messageId: string,
  ) {
    this.parser = new XmlStreamParser(tools.map(xmlSpec));
    this.byName = new Map(tools.map((t) => [t.name, t]));
  }

  push(event: ModelEvent): ProtocolEvent[] {
    switch (event.type) {
      case "text-delta":
        this.text += event.text;
        return this.translate(this.parser.push(event.text));
      case "reasoning-delta":
        return [{ type: "reasoning", text: event.text, ...(event.signature ? { signature: event.signature } : {}) }];
      case "finish":
        return [{ type: "finish", reason: event.reason, usage: event.usage }];
      default:
        // Native tool calls are not expected with this protocol; a model that sends them anyway
        // is told through the no-tool nudge rather than silently obeyed.
        return [];
    }
  }

  end(): ProtocolEvent[] {
    return this.translate(this.parser.end());
  }

  private callId(index: number): string {
    return `${this.messageId}_${index}`;
  }

  private translate(events: XmlParseEvent[]): ProtocolEvent[] {
    const out: ProtocolEvent[] = [];
    for (const e of events) {
      switch (e.type) {
        case "text":
          out.push({ type: "text", text: e.text });
          break;
        case "tool-start":
          out.push({ type: "call-start", id: this.callId(e.index), name: e.name });
          break;
        case "param-delta":
          out.push({ type: "call-delta", id: this.callId(e.index), name: e.name, param: e.param, text: e.text });
          break;
        case "tool-end": {
          const tool = this.byName.get(e.name);
          const { input: params, taskProgress } = takeTaskProgress(e.params);
          const input = tool ? coerceXmlParams(tool.parameters, params as Record<string, string>) : params;
          const inputError = e.ambiguous
            ? ambiguityError(e.name, e.ambiguous)
            : e.truncated
              ? `The <${e.name}> block was cut off before its closing tag </${e.name}>.`
              : undefined;
          const call: ParsedCall = { id: this.callId(e.index), name: e.name, input, ...(inputError ? { inputError } : {}), ...(taskProgress ? { taskProgress } : {}) };
          out.push({ type: "call", call: boundedCall(call, paramChars(e.params)) });
          break;
        }
      }
    }
    return out;
  }
}

function firstParamHint(call: ParsedCall): string {
  const first = Object.values(call.input).find((v) => typeof v === "string");
  if (typeof first !== "string" || first.length === 0 || first.length > 80 || first.includes("\n")) return "";
  return ` for '${first}'`;
}

/** Cline's protocol: tool calls are XML blocks in the model's text; tools are described in the prompt. */
export const xmlProtocol: ToolProtocol = {
  name: "xml",
  requestTools: () => undefined,
  createParser: (tools, messageId) => new XmlTurnParser(tools, messageId),
  assistantMessage(text: string, reasoning: ReasoningPart[]): AssistantMessage {
    return { role: "assistant", content: [...reasoning, { type: "text", text }] };
  },
  resultsMessage(outcomes: CallOutcome[], notes: string[]): UserMessage {
    const content: UserMessage["content"] = [];
    for (const { call, result } of outcomes) {
      const label = `[${call.name}${firstParamHint(call)}] ${result.isError ? "Error" : "Result"}:`;
      content.push({ type: "text", text: `${label}\n${toolResultText(result)}` });
      if (typeof result.content !== "string") content.push(...result.content.filter((p) => p.type === "image"));
    }
    for (const text of notes) content.push({ type: "text", text });
    return { role: "user", content };
  },
};

/** The tool section of the system prompt for the xml protocol: format, then each tool. */
export function xmlToolSection(tools: readonly AnyTool[]): string {
  const docs = tools
    .map((tool) => {
      const { prose, example } = splitDescription(tool);
      return `## ${tool.name}\n${prose}\nParameters:\n${parameterLines(tool)}${example ? `\nExample:\n${example}` : ""}`;
    })
    .join("\n\n");
  return `# Tool use

You act through tools. To call one, write it as XML in your reply: the tool name as the outer tag, each parameter as an inner tag.

<tool_name>
<parameter_name>value</parameter_name>
</tool_name>

Write parameter values as they are, without escaping; a newline right after an opening tag or right before a closing tag is not part of the value. You may call several tools in one message; they run in order, and each result comes back in the next user message. Every reply must contain at least one tool call.

# Tools

${docs}`;
}
