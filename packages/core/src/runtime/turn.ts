import { randomUUID } from "node:crypto";
import { costOf } from "../model/cost.js";
import { classifyModelError } from "../model/classify-error.js";
import type { ModelError } from "../model/errors.js";
import { retryDelayMs, sleep, type RetryPolicy } from "../model/retry.js";
import { addUsage, emptyUsage, reasoningDetailsMark, redactedThinkingMark, type AssistantMessage, type FinishReason, type Message, type Model, type ModelRequest, type ReasoningPart, type ToolSpec, type Usage } from "../model/types.js";
import { continueAfterOutputLimit } from "../prompt/system-prompt.js";
import { textCallNote } from "../protocol/text-calls.js";
import type { ParsedCall, ProtocolEvent, ToolProtocol, TurnParser } from "../protocol/types.js";
import type { AnyTool } from "../tools/tool.js";
import type { AgentEvent, AssistantContentJson } from "../events/index.js";
import { CallScheduler, type ToolExecution } from "./call-scheduler.js";
import { CommandInputWatch } from "./command-input-watch.js";
import { executeCall, skippedResult, type CallEnv, type ExecutedCall } from "./execute-call.js";
import { accessesOf } from "./gather-facts.js";
import { EditPreviews } from "./edit-previews.js";
import type { Hooks } from "./hooks.js";
import type { TaskJournal } from "../storage/task-journal.js";
import { usageJson } from "./usage-json.js";
import { placeThinking, type ThinkingPlace } from "./thinking-order.js";

export type TurnInput = {
  model: Model;
  fallbackModel: Model | undefined;
  protocol: ToolProtocol;
  tools: readonly AnyTool[];
  /** `tools` as the request carries them (protocol.requestTools), converted once by the caller rather than for every attempt. */
  requestTools: ToolSpec[] | undefined;
  system: string;
  messages: readonly Message[];
  retry: RetryPolicy;
  maxContinuations: number;
  hooks: Hooks;
  callEnv: CallEnv;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
  journal: TaskJournal | undefined;
  /** Tools that may change files wait for this (the checkpoint they could be undone to) before they run; reads and the model request do not. */
  beforeWrite(): Promise<void>;
  /** Cost so far in this task, to report running totals. */
  costSoFar: number | null;
  /** The task's budget now, shown with the running totals. */
  budgetUsd?: number;
  /** parallel: the reply's reads run side by side (see call-scheduler.ts); sequential: one call after another. */
  toolExecution?: ToolExecution;
  /** A command call has begun to stream: what the first command needs (the sandbox's network) starts while its input streams. */
  commandSoon?(): void;
  /** A command streaming shows it is not plain (command-input-watch.ts): the bash parser it needs starts loading while the rest streams. */
  parserSoon?(): void;
  /** A call that may change files has begun to stream: its checkpoint's baseline, if put off, is made while its input streams. */
  writeSoon?(): void;
};

export type TurnOutcome =
  | {
      kind: "replied";
      /** The model that answered (the fallback, after a switch). */
      model: Model;
      assistant: AssistantMessage;
      executed: ExecutedCall[];
      finishReason: FinishReason;
      usage: Usage;
      cost: number | null;
      apiMs: number;
      /** Notes for the model about this turn (a broken stream whose complete calls were kept). */
      notes: string[];
      /** The id its message_start and deltas carried, which its assistant event keeps. */
      messageId: string;
    }
  | { kind: "failed"; error: ModelError; model: Model; usage: Usage; cost: number | null; apiMs: number }
  | { kind: "aborted"; usage: Usage; cost: number | null; apiMs: number };

/** Reading, asking and finishing change no file; an unknown tool is refused before it runs, but waits like the rest. */
const kindMayWrite = (tool: AnyTool | undefined): boolean => tool?.kind !== "read" && tool?.kind !== "interaction" && tool?.kind !== "control";

/** Whether a call may change files: by its tool's kind, unless the tool says so of this call. */
const mayWrite = (tool: AnyTool | undefined, input: Record<string, unknown>): boolean => (tool?.readOnlyFor ? !tool.readOnlyFor(input) : kindMayWrite(tool));

/** A call that changes nothing anywhere, by its tool's declaration (for this call, or by its kind): one that names no path to edit. */
const changesNothing = (tool: AnyTool | undefined, input: Record<string, unknown>): boolean =>
  tool !== undefined && (tool.readOnlyFor ? tool.readOnlyFor(input) : tool.kind === "read" || tool.readOnly === true) && accessesOf(tool, input).every((a) => a.type !== "edit");

/** Statuses of a call's life after which it has passed its checks and approval. */
const clearedStatus = new Set(["running", "completed", "failed", "denied", "cancelled"]);
const endStatus = new Set(["completed", "failed", "denied", "cancelled"]);

const addCost = (a: number | null, b: number | null) => (a === null || b === null ? (a ?? b) : a + b);

/**
 * One assistant message: request it (retrying and falling back as the policy allows, continuing
 * it when the output limit cuts it), and run each tool call the moment its block is complete.
 */
export async function runTurn(input: TurnInput): Promise<TurnOutcome> {
  const { protocol, tools, emit, signal } = input;
  const messageId = `msg_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
  let model = input.model;
  let usage = emptyUsage();
  let cost: number | null = null;
  let apiMs = 0;

  // Text of pieces already accepted (before a continuation), and the parser fed with it.
  let committedText = "";
  let parser: TurnParser = protocol.createParser(tools, messageId);
  const calls: ParsedCall[] = [];
  const executed: ExecutedCall[] = [];
  let reasoning: ReasoningPart[] = [];
  let halt: string | undefined;
  let finishReason = "stop" as FinishReason;
  const notes: string[] = [];
  /** Calls the model wrote as XML text under the native protocol: run, and the model is told to use function calls. */
  const textCalls: string[] = [];
  const previews = new EditPreviews(input.callEnv.cwd, input.callEnv.ignore, input.callEnv.files);
  const commandInput = input.parserSoon ? new CommandInputWatch(input.parserSoon) : undefined;

  // The loop detector's record of calls, kept in the reply's order whatever order the calls finish in.
  const history = input.callEnv.history;
  const ownHistory = new Map<ParsedCall, { base: number; records: CallEnv["history"] }>();
  // A call's end (completed, failed, denied, cancelled) is announced only once its result is in the
  // journal, which keeps the reply's order: a host that saw "completed" and a kill -9 right after
  // must not disagree about what ran. A read that ends before the calls ahead of it waits for them.
  const heldEnds = new Map<ParsedCall, AgentEvent>();
  const isEnd = (event: AgentEvent, call: ParsedCall) => event.type === "tool_call_update" && event.tool_use_id === call.id && endStatus.has(event.status);
  const holdingEnd = (call: ParsedCall, emit: (event: AgentEvent) => void) => (event: AgentEvent) => {
    if (isEnd(event, call)) heldEnds.set(call, event);
    else emit(event);
  };
  const scheduler = new CallScheduler<ParsedCall, ExecutedCall>({
    execution: input.toolExecution ?? "parallel",
    concurrent: (call) => changesNothing(input.callEnv.tools.get(call.name), call.input),
    run: async (call, { cleared }) => {
      if (halt !== undefined) return skippedResult({ ...input.callEnv, emit: holdingEnd(call, input.callEnv.emit) }, call, halt);
      if (mayWrite(tools.find((t) => t.name === call.name), call.input)) await input.beforeWrite();
      const records = [...history];
      ownHistory.set(call, { base: records.length, records });
      const env: CallEnv = {
        ...input.callEnv,
        history: records,
        emit: (event) => {
          if (event.type === "tool_call_update" && event.tool_use_id === call.id && clearedStatus.has(event.status)) {
            // Set before the next read is let through, so it is skipped rather than run.
            if (event.status === "denied") halt ??= `${call.name} before it in this message was denied; this call did not run.`;
            cleared();
          }
          holdingEnd(call, input.callEnv.emit)(event);
        },
      };
      const done = await executeCall(call, env);
      if (done.result.control?.type === "complete") halt ??= "attempt_completion before it in this message ended the task.";
      else if (done.result.control?.type === "ask") halt ??= "a question before it in this message is waiting for an answer.";
      return done;
    },
    settled: (call, done) => {
      const own = ownHistory.get(call);
      if (own) history.push(...own.records.slice(own.base));
      executed.push(done);
      input.journal?.callResult(done.call, done.result);
      const end = heldEnds.get(call);
      heldEnds.delete(call);
      if (end) input.callEnv.emit(end);
    },
  });
  const dispatch = (call: ParsedCall) => {
    calls.push(call);
    scheduler.add(call);
  };
  const allDone = () => scheduler.finished().then(() => undefined);

  // The reply's thinking blocks: a signature closes its block, so each keeps its own (Anthropic checks them one by one).
  let pieceBlocks: ReasoningPart[] = [];
  // Where each block began, so the message keeps interleaved thinking in its place (thinking-order.ts).
  const places = new Map<ReasoningPart, ThinkingPlace>();
  let reasoningEnd: ThinkingPlace | undefined;
  const handle = (events: ProtocolEvent[]) => {
    for (const event of events) {
      switch (event.type) {
        case "text":
          emit({ type: "text_delta", message_id: messageId, text: event.text });
          break;
        case "reasoning": {
          let block = pieceBlocks.at(-1);
          // Text or a call since the last thinking also closes a block (an unsigned one, from a gateway).
          const place = { textAt: parser.text.length, callsAt: calls.length };
          const ended = block && (reasoningEnd?.textAt !== place.textAt || reasoningEnd.callsAt !== place.callsAt);
          if (!block || block.signature !== undefined || ended) {
            pieceBlocks.push((block = { type: "reasoning", text: "" }));
            places.set(block, place);
          }
          reasoningEnd = place;
          block.text += event.text;
          if (event.signature) block.signature = event.signature;
          if (event.text) emit({ type: "reasoning_delta", message_id: messageId, text: event.text });
          break;
        }
        case "call-start": {
          const tool = tools.find((t) => t.name === event.name);
          if (tool?.kind === "command") {
            input.commandSoon?.();
            commandInput?.start(event.id);
          }
          // Its input is not known yet: a tool that decides per call may write.
          if (tool && (tool.readOnlyFor !== undefined || kindMayWrite(tool))) input.writeSoon?.();
          break;
        }
        case "call-delta":
          emit({ type: "tool_call_delta", id: event.id, name: event.name, param: event.param, text: event.text });
          commandInput?.delta(event.id, event.param, event.text);
          for (const preview of previews.onDelta(event.id, event.name, event.param, event.text)) emit(preview);
          break;
        case "call":
          if (event.call.fromText) textCalls.push(event.call.name);
          dispatch(event.call);
          break;
        case "finish":
          finishReason = event.reason;
          usage = addUsage(usage, event.usage);
          {
            const requestCost = costOf(event.usage, model.info.pricing);
            cost = addCost(cost, requestCost);
            emit({ type: "usage", model: model.id, usage: usageJson(event.usage), cost_usd: requestCost, total_cost_usd: addCost(input.costSoFar, cost), ...(input.budgetUsd !== undefined ? { budget_usd: input.budgetUsd } : {}) });
          }
          break;
      }
    }
  };

  let attempt = 0;
  let continuations = 0;
  let usedFallback = false;
  for (;;) {
    // Each attempt and each continuation streams anew: a discard takes back only what followed this.
    emit({ type: "message_start", message_id: messageId });
    pieceBlocks = [];
    const callsBefore = calls.length;
    const messages: Message[] = [...input.messages];
    if (continuations > 0) {
      messages.push({ role: "assistant", content: [{ type: "text", text: committedText }] });
      messages.push({ role: "user", content: [{ type: "text", text: continueAfterOutputLimit }] });
    }
    let request: ModelRequest = { system: input.system, messages };
    // A beforeModel hook may change the request in place: it gets its own copy, as each attempt once converted its own.
    if (input.requestTools) request.tools = input.hooks.beforeModel ? structuredClone(input.requestTools) : input.requestTools;
    request = (await input.hooks.beforeModel?.(request)) ?? request;

    const started = Date.now();
    try {
      for await (const event of model.stream(request, signal)) handle(parser.push(event));
      apiMs += Date.now() - started;
    } catch (raw) {
      apiMs += Date.now() - started;
      const error = classifyModelError(raw, true, signal);
      if (error.kind === "aborted" || signal.aborted) {
        await allDone();
        return { kind: "aborted", usage, cost, apiMs };
      }
      if (calls.length > callsBefore) {
        // Calls already running are kept with the text that carried them; the model is told.
        handle(parser.end());
        notes.push(`[Your previous reply was cut off by a connection error (${error.message}) after its last complete tool call. Continue from there.]`);
        finishReason = "other";
        break;
      }
      emit({ type: "stream_discarded", message_id: messageId, reason: error.message });
      attempt++;
      let delay = retryDelayMs(error, attempt, input.retry);
      if (delay === undefined && error.retryable && input.fallbackModel && !usedFallback) {
        usedFallback = true;
        emit({ type: "system", subtype: "fallback_model", from_model: model.id, to_model: input.fallbackModel.id, error: error.message });
        model = input.fallbackModel;
        attempt = 0;
        delay = 0;
      }
      if (delay === undefined) {
        await allDone();
        return { kind: "failed", error, model, usage, cost, apiMs };
      }
      if (attempt > 0) {
        emit({
          type: "system",
          subtype: "api_retry",
          attempt,
          max_retries: input.retry.maxRetries,
          retry_delay_ms: delay,
          error_status: error.status ?? null,
          error: error.message,
        });
      }
      try {
        await sleep(delay, signal);
      } catch {
        await allDone();
        return { kind: "aborted", usage, cost, apiMs };
      }
      // Rebuild the parser from accepted text only; its calls were dispatched already.
      parser = protocol.createParser(tools, messageId);
      if (committedText) parser.push({ type: "text-delta", text: committedText });
      continue;
    }

    reasoning = [...reasoning, ...pieceBlocks.filter((block) => block.text || block.signature)];
    if (finishReason === "length" && continuations < input.maxContinuations && halt === undefined) {
      continuations++;
      attempt = 0;
      committedText = parser.text;
      continue;
    }
    handle(parser.end());
    break;
  }

  if (textCalls.length > 0) notes.push(textCallNote(textCalls));
  // Written down before the calls finish, so a crash keeps the message and the results so far.
  const assistant = placeThinking(protocol.assistantMessage(parser.text, reasoning, calls), places);
  input.journal?.message(assistant);
  await input.hooks.afterModel?.(assistant);
  await allDone();
  return { kind: "replied", model, assistant, executed, finishReason, usage, cost, apiMs, notes, messageId };
}

/**
 * A reply as hosts see it: the assistant event (Claude Code's stream-json shape). Its id is the one
 * its message_start and deltas carried, so a host settles the streamed text into this message.
 */
export function assistantEvent(sessionId: string, reply: Extract<TurnOutcome, { kind: "replied" }>): AgentEvent {
  return {
    type: "assistant",
    session_id: sessionId,
    message: {
      id: reply.messageId,
      role: "assistant",
      model: reply.model.id,
      content: reply.assistant.content.flatMap((p): AssistantContentJson[] => {
        if (p.type === "text") return [{ type: "text", text: p.text }];
        if (p.type === "tool-call") return [{ type: "tool_use", id: p.id, name: p.name, input: p.input }];
        // A redacted block is shown as one, without its data; OpenRouter's reasoning details are no block of their own.
        if (p.signature?.startsWith(redactedThinkingMark)) return [{ type: "redacted_thinking" }];
        if (p.signature?.startsWith(reasoningDetailsMark)) return [];
        return [{ type: "thinking", thinking: p.text }];
      }),
      stop_reason: reply.finishReason,
      usage: usageJson(reply.usage),
    },
  };
}
