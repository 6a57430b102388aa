import type { AssistantMessage, ModelRequest } from "../model/types.js";
import type { ParsedCall } from "../protocol/types.js";
import type { ToolResult } from "../tools/tool.js";
import type { AgentEvent } from "../events/index.js";

type MaybePromise<T> = T | Promise<T>;

/** Extension points around the loop. Each may be async; none may write to stdout. */
export type Hooks = {
  /** May return a changed request (e.g. extra context). */
  beforeModel?(request: ModelRequest): MaybePromise<ModelRequest | void>;
  afterModel?(message: AssistantMessage): MaybePromise<void>;
  /** Return `{ deny }` to refuse a call (the reason reaches the model), or `{ input }` to change it. */
  beforeTool?(call: ParsedCall): MaybePromise<{ deny: string } | { input: Record<string, unknown> } | void>;
  /** May return a replacement result. */
  afterTool?(call: ParsedCall, result: ToolResult): MaybePromise<ToolResult | void>;
  onEvent?(event: AgentEvent): void;
};
