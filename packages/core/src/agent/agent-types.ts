import type { AgentEvent } from "../events/index.js";
import type { AssistantMessage, ImagePart, Message, ModelRequest, Usage } from "../model/types.js";
import type { Mode } from "../policy/mode.js";
import type { ParsedCall } from "../protocol/types.js";
import type { Env, SessionOverrides } from "../session/overrides.js";
import type { CommandExecutor } from "../terminal/command-executor.js";
import type { TextFiles } from "../tools/files/index.js";
import type { ToolResult } from "../tools/tool.js";
import type { Host } from "../runtime/host.js";
import type { TaskResult } from "../runtime/task-options.js";

type MaybePromise<T> = T | Promise<T>;

/** The person's message: text, and pictures for models that take them. */
export type RunInput = string | { text: string; images?: readonly ImagePart[] };

/** How a run ended: the `result` event's fields (subtype, result, turns, usage, cost, session id). */
export type AgentRunResult = TaskResult;

/**
 * Extension points, each a list run in order. beforeModel, beforeTool and afterTool pass what one
 * returns to the next; the first beforeTool that denies a call decides. None may write to stdout.
 */
export type AgentHooks = {
  /** Before each run or continue; may return a changed message. */
  beforeRun: Array<(input: { text: string; images: readonly ImagePart[] }) => MaybePromise<{ text: string; images?: readonly ImagePart[] } | void>>;
  afterRun: Array<(result: AgentRunResult) => MaybePromise<void>>;
  beforeModel: Array<(request: ModelRequest) => MaybePromise<ModelRequest | void>>;
  afterModel: Array<(message: AssistantMessage) => MaybePromise<void>>;
  /** `{ deny }` refuses the call (the reason reaches the model); `{ input }` changes it (checked again like the model's own). */
  beforeTool: Array<(call: ParsedCall) => MaybePromise<{ deny: string } | { input: Record<string, unknown> } | void>>;
  afterTool: Array<(call: ParsedCall, result: ToolResult) => MaybePromise<ToolResult | void>>;
  onEvent: Array<(event: AgentEvent) => void>;
};

/** What an agent is made of. Everything else (models, settings, store, checkpoints, MCP, sandbox) comes from the session, as for `cairn run`. */
export type AgentConfig = {
  /** The workspace folder. */
  cwd: string;
  /** The task's title in `cairn history` (default: the first line of the first message). */
  title?: string;
  /** CAIRN_HOME (default: $CAIRN_HOME or ~/.cairn). */
  home?: string;
  /** The environment settings and API keys are read from (default: process.env). */
  env?: Env;
  /** Settings above every other layer, as `cairn run`'s flags give them (provider, model, autoApprove...). */
  overrides?: SessionOverrides;
  /** Answers approvals and questions; without it, calls that need approval are refused. */
  host?: Host;
  hooks?: Partial<AgentHooks>;
  /** The host's own files and commands (a remote workspace); by default the local disk and the OS sandbox. */
  executors?: { files?: TextFiles; commands?: CommandExecutor };
  /** The task this agent works for (a sub-agent's parent), kept in its snapshot. */
  parentId?: string;
};

export type AgentStatus = "idle" | "running" | "completed" | "needs_input" | "failed" | "aborted";

/** A call of the current reply that has not ended yet. */
export type PendingToolCall = { tool_use_id: string; name: string; input: Record<string, unknown>; status: "pending" | "awaiting_approval" | "running" };

/** Where an agent stands, as plain JSON: store it, and `restore` it into a new agent (in this process or another with the same CAIRN_HOME). */
export type AgentSnapshot = {
  /** The task's id (its record under CAIRN_HOME/tasks), once it has run. */
  id: string | undefined;
  parentId: string | undefined;
  status: AgentStatus;
  /** Model turns so far. */
  iteration: number;
  mode: Mode;
  pendingToolCalls: PendingToolCall[];
  messages: Message[];
  usage: Usage;
  costUsd: number | null;
};

export type Agent = {
  /** The task's id, once the first run has opened it. */
  readonly id: string | undefined;
  /** Sends the person's message and resolves when the run ends (completed, a question, a stop or an error). */
  run(input: RunInput): Promise<AgentRunResult>;
  /** The next message of the same task: feedback on a result, an answer, a new instruction. */
  continue(input: RunInput): Promise<AgentRunResult>;
  /** Stops the model and any running tool; the run resolves with error_aborted. */
  abort(): void;
  /** Every event of every run; returns the unsubscribe function. */
  subscribe(listener: (event: AgentEvent) => void): () => void;
  snapshot(): AgentSnapshot;
  /** Takes up a snapshot's task (not while running): its stored record, with the snapshot's conversation. */
  restore(snapshot: AgentSnapshot): Promise<void>;
  /** Ends what the agent holds (MCP connections). */
  close(): Promise<void>;
};
