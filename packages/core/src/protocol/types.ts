import type { AssistantMessage, FinishReason, ModelEvent, ReasoningPart, ToolSpec, Usage, UserMessage } from "../model/types.js";
import type { AnyTool, ToolResult } from "../tools/tool.js";

import type { ProtocolName } from "../model/protocol-name.js";

export { protocolNames, type ProtocolName } from "../model/protocol-name.js";

/** A complete tool call as the protocol understood it; `input` is not validated yet. */
export type ParsedCall = {
  /** Cairn's id of the call, unique in its task (model/call-ids.ts). */
  id: string;
  /** The provider's id of a native call, kept only to send the call back to the provider. */
  providerId?: string;
  name: string;
  input: Record<string, unknown>;
  /** Why the call's input could not be read (malformed JSON, a block cut off by the output limit). */
  inputError?: string;
  /**
   * Under the native protocol: the model wrote this call as an XML block in its text instead of
   * calling the tool. It runs like a native call (policy, approval), and the model is told to use
   * function calls.
   */
  fromText?: true;
  /** The focus chain's checklist sent with this call (taken out of `input`; see task-progress.ts). */
  taskProgress?: string;
};

/** What the loop sees of a model stream, whatever the protocol. */
export type ProtocolEvent =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string; signature?: string }
  | { type: "call-start"; id: string; name: string }
  /** A streamed piece of a call's input: one parameter's value (xml) or raw JSON text (native, param null). */
  | { type: "call-delta"; id: string; name: string; param: string | null; text: string }
  | { type: "call"; call: ParsedCall }
  | { type: "finish"; reason: FinishReason; usage: Usage };

export interface TurnParser {
  push(event: ModelEvent): ProtocolEvent[];
  /** The stream ended (or was cut): flush what is held back. */
  end(): ProtocolEvent[];
  /** The assistant text exactly as streamed so far (the xml protocol records it as the message). */
  readonly text: string;
}

export type CallOutcome = { call: ParsedCall; result: ToolResult };

export interface ToolProtocol {
  readonly name: ProtocolName;
  /** Tools sent with the request for native function calling; undefined when tools live in the prompt. */
  requestTools(tools: readonly AnyTool[]): ToolSpec[] | undefined;
  createParser(tools: readonly AnyTool[], messageId: string): TurnParser;
  assistantMessage(text: string, reasoning: ReasoningPart[], calls: ParsedCall[]): AssistantMessage;
  /** The user message that carries the results of the calls, then any notes for the model. */
  resultsMessage(outcomes: CallOutcome[], notes: string[]): UserMessage;
}
