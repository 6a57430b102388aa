import type { WebEvent } from "../../src/web-event.ts";
import { applyToolCallEvent, type AgentEvent, type ToolCallRecord } from "./tool-calls.ts";
import type { Mode } from "./tool-calls.ts";

export type StreamEntry = { task_id: string; event: AgentEvent | WebEvent };

export type Item =
  | { kind: "user"; key: string; text: string; images?: number }
  | { kind: "assistant"; key: string; message_id: string; text: string; reasoning: string; done: boolean }
  | { kind: "tool"; key: string; tool_use_id: string; problems?: Problems }
  | { kind: "question"; key: string; tool_use_id: string; question: string; options: string[]; answer?: string }
  | { kind: "notice"; key: string; level: "info" | "warning" | "error"; text: string }
  | { kind: "result"; key: string; subtype: string; text: string; is_error: boolean; plan?: string }
  | { kind: "prompt"; key: string; prompt: "plan" | "continue"; text: string; answer?: { approved: boolean; feedback?: string } };

/** One problem an edit introduced, as its language server reported it (the diagnostics event). */
export type CardProblem = { path: string; line: number; column: number; code?: string; message: string };
/** The problems shown under an edit's card: the first few, and how many there were in all. */
export type Problems = { shown: CardProblem[]; count: number };
/** Problems kept per card (the model got up to 20 per file; the card counts the rest). */
export const MAX_CARD_PROBLEMS = 10;

/** One task as the page shows it, folded from its events in order. */
export type TaskState = {
  id: string;
  title: string;
  cwd: string;
  model: string;
  provider: string;
  contextWindow: number | null;
  mode: Mode;
  running: boolean;
  items: Item[];
  tools: Map<string, ToolCallRecord>;
  tokens: { input: number; output: number };
  /** Tokens the last request sent: how full the context window is. */
  contextTokens: number;
  costUsd: number | null;
  checkpoints: number;
  /** Bumped by every restore, so the timeline reloads. */
  restores: number;
  /** The question the task waits on, if any. */
  waitingQuestion?: string;
};

function newTask(id: string): TaskState {
  return { id, title: id, cwd: "", model: "", provider: "", contextWindow: null, mode: "act", running: false, items: [], tools: new Map(), tokens: { input: 0, output: 0 }, contextTokens: 0, costUsd: null, checkpoints: 0, restores: 0 };
}

function assistantItem(task: TaskState, message_id: string): Extract<Item, { kind: "assistant" }> {
  for (let i = task.items.length - 1; i >= 0; i--) {
    const item = task.items[i]!;
    if (item.kind === "assistant" && item.message_id === message_id) return item;
  }
  const item: Extract<Item, { kind: "assistant" }> = { kind: "assistant", key: `a-${message_id}`, message_id, text: "", reasoning: "", done: false };
  task.items.push(item);
  return item;
}

/**
 * The item a complete reply settles into. Its id names the reply (session and turn), not the
 * streamed attempts (their message_id), so it takes over the first piece still streaming, and the
 * pieces after it (continuations of the same reply) fold into it; with nothing streamed, a new item.
 */
function completedReply(task: TaskState, id: string): Extract<Item, { kind: "assistant" }> {
  const streaming = task.items.filter((i): i is Extract<Item, { kind: "assistant" }> => i.kind === "assistant" && !i.done);
  const [first, ...rest] = streaming;
  if (!first) return assistantItem(task, id);
  task.items = task.items.filter((i) => !rest.includes(i as Extract<Item, { kind: "assistant" }>));
  return first;
}

let keys = 0;
const key = () => `k${++keys}`;

/** Applies one event to its task (mutating: the page re-renders once per frame, not per event). */
export function applyEntry(tasks: Map<string, TaskState>, entry: StreamEntry): void {
  let task = tasks.get(entry.task_id);
  if (!task) {
    task = newTask(entry.task_id);
    tasks.set(entry.task_id, task);
  }
  const event = entry.event;
  switch (event.type) {
    case "web_task":
      Object.assign(task, { title: event.title, cwd: event.cwd, model: event.model, provider: event.provider, contextWindow: event.context_window, mode: event.mode });
      return;
    case "web_user_message":
      task.items.push({ kind: "user", key: key(), text: event.text, ...(event.images ? { images: event.images } : {}) });
      return;
    case "web_run":
      task.running = event.running;
      return;
    case "web_notice":
      task.items.push({ kind: "notice", key: key(), level: event.level, text: event.message });
      return;
    case "web_answered": {
      const question = [...task.items].reverse().find((i): i is Extract<Item, { kind: "question" }> => i.kind === "question" && i.answer === undefined);
      if (question) question.answer = event.answer;
      task.waitingQuestion = undefined;
      return;
    }
    case "web_mode":
      task.mode = event.mode;
      task.items.push({ kind: "notice", key: key(), level: "info", text: event.mode === "plan" ? "Plan mode: the task explores and plans, and changes nothing." : "Act mode: the task can change files and run commands." });
      return;
    case "web_restored":
      task.restores += 1;
      task.items.push({ kind: "notice", key: key(), level: "info", text: event.summary });
      return;
    case "web_prompt":
      task.items.push({ kind: "prompt", key: key(), prompt: event.kind, text: event.text });
      return;
    case "web_prompt_answered": {
      const prompt = [...task.items].reverse().find((i): i is Extract<Item, { kind: "prompt" }> => i.kind === "prompt" && i.answer === undefined);
      if (prompt) prompt.answer = { approved: event.approved, ...(event.feedback ? { feedback: event.feedback } : {}) };
      return;
    }
    case "system":
      if (event.subtype === "init") Object.assign(task, { model: event.model, provider: event.provider, mode: event.mode });
      else if (event.subtype === "mode") task.mode = event.mode;
      else if (event.subtype === "notice") task.items.push({ kind: "notice", key: key(), level: event.level, text: event.message });
      else if (event.subtype === "fallback_model") task.model = event.to_model;
      return;
    case "text_delta":
      assistantItem(task, event.message_id).text += event.text;
      return;
    case "reasoning_delta":
      assistantItem(task, event.message_id).reasoning += event.text;
      return;
    case "stream_discarded": {
      const item = assistantItem(task, event.message_id);
      item.text = "";
      item.reasoning = "";
      return;
    }
    case "assistant": {
      const item = completedReply(task, event.message.id);
      item.text = event.message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
      item.reasoning = event.message.content.flatMap((c) => (c.type === "thinking" ? [c.thinking] : [])).join("");
      item.done = true;
      return;
    }
    case "tool_call":
      task.items.push({ kind: "tool", key: `t-${event.tool_use_id}`, tool_use_id: event.tool_use_id });
      task.tools = applyToolCallEvent(task.tools, event);
      return;
    case "tool_call_update":
    case "tool_output":
      task.tools = applyToolCallEvent(task.tools, event);
      return;
    case "diagnostics": {
      // Under the edit's card: a new item object, so the card renders again.
      if (event.problems.length === 0) return;
      task.items = task.items.map((item) => {
        if (item.kind !== "tool" || item.tool_use_id !== event.tool_use_id) return item;
        const before = item.problems ?? { shown: [], count: 0 };
        const added = event.problems.slice(0, Math.max(0, MAX_CARD_PROBLEMS - before.shown.length)).map((p) => ({
          path: event.path,
          line: p.line,
          column: p.column,
          message: p.message.split("\n", 1)[0]!,
          ...(p.code === undefined ? {} : { code: p.code }),
        }));
        return { ...item, problems: { shown: [...before.shown, ...added], count: before.count + event.problems.length } };
      });
      return;
    }
    case "question":
      task.items.push({ kind: "question", key: key(), tool_use_id: event.tool_use_id, question: event.question, options: event.options });
      task.waitingQuestion = event.question;
      return;
    case "usage":
      task.tokens.input += event.usage.input_tokens + event.usage.cache_read_input_tokens + event.usage.cache_creation_input_tokens;
      task.tokens.output += event.usage.output_tokens;
      task.contextTokens = event.usage.input_tokens + event.usage.cache_read_input_tokens + event.usage.cache_creation_input_tokens;
      if (event.total_cost_usd !== null) task.costUsd = event.total_cost_usd;
      return;
    case "checkpoint":
      task.checkpoints += 1;
      return;
    case "error":
      task.items.push({ kind: "notice", key: key(), level: "error", text: event.message });
      return;
    case "result":
      task.waitingQuestion = undefined;
      if (event.total_cost_usd !== null) task.costUsd = event.total_cost_usd;
      task.items.push({
        kind: "result",
        key: key(),
        subtype: event.subtype,
        text: event.result,
        is_error: event.is_error,
        ...(event.plan ? { plan: event.plan } : {}),
      });
      return;
    default:
      return;
  }
}
