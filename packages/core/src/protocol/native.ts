import type { AssistantMessage, ModelEvent, ReasoningPart, ToolSpec, UserMessage } from "../model/types.js";
import { parameterSchema } from "../tools/describe-parameters.js";
import type { AnyTool } from "../tools/tool.js";
import { splitDescription } from "../tools/describe-tool.js";
import { argumentSizeProblem, boundedCall } from "./argument-shape.js";
import { toolResultText } from "./result-text.js";
import { takeTaskProgress, taskProgressParam, withTaskProgress } from "./task-progress.js";
import { TextCalls } from "./text-calls.js";
import type { CallOutcome, ParsedCall, ProtocolEvent, ToolProtocol, TurnParser } from "./types.js";

/** `taskProgress`: offer the focus chain's task_progress parameter too. */
export function toolSpec(tool: AnyTool, taskProgress = false): ToolSpec {
  const schema = parameterSchema(tool);
  return { name: tool.name, description: splitDescription(tool).prose, inputSchema: taskProgress ? withTaskProgress(schema) : schema };
}

function parseArgs(argsText: string): { input: Record<string, unknown>; error?: string } {
  if (argsText.trim() === "") return { input: {} };
  try {
    const value: unknown = JSON.parse(argsText);
    if (value && typeof value === "object" && !Array.isArray(value)) return { input: value as Record<string, unknown> };
    return { input: {}, error: "The arguments must be a JSON object." };
  } catch (error) {
    return { input: {}, error: `The arguments are not valid JSON (${(error as Error).message}).` };
  }
}

class NativeParser implements TurnParser {
  text = "";
  private names = new Map<string, string>();
  private nativeCalls = 0;
  private readonly textCalls: TextCalls;

  constructor(tools: readonly AnyTool[], messageId: string) {
    this.textCalls = new TextCalls(tools, messageId);
  }

  push(event: ModelEvent): ProtocolEvent[] {
    switch (event.type) {
      case "text-delta":
        this.text += event.text;
        this.textCalls.push(event.text);
        return [{ type: "text", text: event.text }];
      case "reasoning-delta":
        return [{ type: "reasoning", text: event.text, ...(event.signature ? { signature: event.signature } : {}) }];
      case "tool-call-start":
        this.nativeCalls++;
        this.names.set(event.id, event.name);
        return [{ type: "call-start", id: event.id, name: event.name }];
      case "tool-call-delta":
        return [{ type: "call-delta", id: event.id, name: this.names.get(event.id) ?? "", param: null, text: event.argsText }];
      case "tool-call": {
        // Too long to be worth parsing: refused before JSON.parse holds it all a second time.
        const tooLong = argumentSizeProblem(event.name, event.argsText.length);
        const parsed = tooLong ? { input: {}, error: tooLong } : parseArgs(event.argsText);
        const { input, taskProgress } = takeTaskProgress(parsed.input);
        const call: ParsedCall = { id: event.id, ...(event.providerId ? { providerId: event.providerId } : {}), name: event.name, input, ...(parsed.error ? { inputError: parsed.error } : {}), ...(taskProgress ? { taskProgress } : {}) };
        return [{ type: "call", call: boundedCall(call, event.argsText.length) }];
      }
      case "finish":
        return [{ type: "finish", reason: event.reason, usage: event.usage }];
    }
  }

  /** A reply without a native call whose text holds complete tool blocks: those run, as if called. */
  end(): ProtocolEvent[] {
    const calls = this.textCalls.end();
    if (this.nativeCalls > 0) return [];
    return calls.flatMap((call): ProtocolEvent[] => [
      { type: "call-start", id: call.id, name: call.name },
      { type: "call", call },
    ]);
  }
}

/** The provider's own function calling: tools go in the request as JSON schemas. */
export const nativeProtocol: ToolProtocol = nativeProtocolWith(false);

/** `taskProgress`: every tool's schema offers task_progress (the focus chain). */
export function nativeProtocolWith(taskProgress: boolean): ToolProtocol {
  return {
    name: "native",
    requestTools: (tools) => tools.map((tool) => toolSpec(tool, taskProgress)),
    createParser: (tools, messageId) => new NativeParser(tools, messageId),
    assistantMessage(text: string, reasoning: ReasoningPart[], calls: ParsedCall[]): AssistantMessage {
      return {
        role: "assistant",
        content: [
          ...reasoning,
          ...(text ? [{ type: "text" as const, text }] : []),
          // The checklist stays in the conversation as the model wrote it: its own calls, unaltered.
          ...calls.map((c) => ({ type: "tool-call" as const, id: c.id, ...(c.providerId ? { providerId: c.providerId } : {}), name: c.name, input: c.taskProgress ? { ...c.input, [taskProgressParam]: c.taskProgress } : c.input })),
        ],
      };
    },
    resultsMessage(outcomes: CallOutcome[], notes: string[]): UserMessage {
      return {
        role: "user",
        content: [
          ...outcomes.map(({ call, result }) => ({
            type: "tool-result" as const,
            toolCallId: call.id,
            toolName: call.name,
            isError: result.isError === true,
            content: typeof result.content === "string" ? [{ type: "text" as const, text: toolResultText(result) }] : result.content,
          })),
          ...notes.map((text) => ({ type: "text" as const, text })),
        ],
      };
    },
  };
}
