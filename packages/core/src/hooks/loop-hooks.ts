import type { AgentEvent } from "../events/index.js";
import type { AssistantMessage, ModelRequest } from "../model/types.js";
import type { ParsedCall } from "../protocol/types.js";
import type { ToolResult } from "../tools/tool.js";
import type { HookNotice } from "./hook-output.js";

type MaybePromise<T> = T | Promise<T>;

/** What every hook is handed besides its event: the task's abort, which stops a hook's commands. */
export type HookContext = { signal: AbortSignal };

/** What a hook adds to any event: notices for the person (never the model), in order. */
type Noticed = { notices?: readonly HookNotice[] };

/**
 * A verdict on a call before it is approved. `deny` refuses it (the reason reaches the person and
 * the journal; `message`, when given, is what the model reads instead of "Blocked by a hook: …").
 * `input` replaces the call's input (checked again like the model's own). `decision` allow skips
 * the approval prompt where policy lets a hook answer, ask forces one. `context` is added for the
 * model after the result; `endRun` ends the run after this call.
 */
export type BeforeToolVerdict = Noticed & {
  deny?: string;
  message?: string;
  input?: Record<string, unknown>;
  decision?: "allow" | "ask";
  context?: string;
  endRun?: string;
};

/** After a call ran: a replacement `result`, `context` for the model after it, `endRun` to end the run. */
export type AfterToolVerdict = Noticed & { result?: ToolResult; context?: string; endRun?: string };

/**
 * The loop's one hook interface: every extension point around a task, for programs (createAgent)
 * and for the shell hooks of settings alike (shellHooks adapts them; composeHooks runs several).
 * Each may be async; none may write to stdout.
 */
export type Hooks = {
  /** May return a changed request (e.g. extra context). */
  beforeModel?(request: ModelRequest): MaybePromise<ModelRequest | void>;
  afterModel?(message: AssistantMessage): MaybePromise<void>;
  /** Before approval; a bare `{ deny }` or `{ input }` is enough for most hooks. */
  beforeTool?(call: ParsedCall, ctx: HookContext): MaybePromise<BeforeToolVerdict | void>;
  /** May return a replacement result (a bare ToolResult, as before, or `{ result }`). */
  afterTool?(call: ParsedCall, result: ToolResult, ctx: HookContext): MaybePromise<ToolResult | AfterToolVerdict | void>;
  onEvent?(event: AgentEvent): void;
  /** The first prompt of this Task object: context for the model. */
  sessionStart?(source: "startup" | "resume", ctx: HookContext): MaybePromise<(Noticed & { context?: string }) | void>;
  /** The person's message is about to be sent: context to add, or `block` (why the run ends unsent). */
  onPrompt?(prompt: string, ctx: HookContext): MaybePromise<(Noticed & { context?: string; block?: string }) | void>;
  /** The model would finish: `block` says why it may not yet. `continuations`: times hooks kept it going this run. */
  onStop?(continuations: number, ctx: HookContext): MaybePromise<(Noticed & { block?: string }) | void>;
  beforeCompact?(trigger: "manual" | "auto", ctx: HookContext): MaybePromise<Noticed | void>;
  sessionEnd?(reason: string, ctx: HookContext): MaybePromise<Noticed | void>;
  /** The person is needed (an approval, a question). */
  notification?(message: string, notificationType: string, ctx: HookContext): MaybePromise<Noticed | void>;
};
