/**
 * AgentEvent: the only thing hosts consume. One discriminated union on `type`.
 *
 * Field names are snake_case because events are a wire format (`cairn run --json` prints them
 * as they are); where Claude Code's stream-json has the same event (system/init, assistant,
 * system/api_retry, result) the names and shapes match it, so tools built for it read ours.
 */

import type { ApprovalCategory } from "../policy/approval-category.js";
import type { Decision } from "../policy/decision.js";
import type { Mode } from "../policy/mode.js";
import type { ToolKind } from "../policy/tool-kind.js";
import type { ProtocolName } from "../model/protocol-name.js";
import type { PlanEstimate } from "./plan-estimate.js";

// Policy's vocabulary that events carry, kept on events' face for hosts.
export type { Decision, ToolKind };

export type UsageJson = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** Of output_tokens, those spent thinking; present when the model reasoned. */
  reasoning_output_tokens?: number;
  /** The server reported no usage (vLLM, Ollama): the counts are Cairn's estimate from the characters sent and received. */
  estimated?: true;
};

/** The life of one tool call: pending -> awaiting_approval -> running -> one of the ends. */
export type ToolCallStatus = "pending" | "awaiting_approval" | "running" | "completed" | "failed" | "denied" | "cancelled";

/** The end states of a tool call. */
export type ToolCallEnd = "completed" | "failed" | "denied" | "cancelled";

/** The OS sandbox of a task as hosts show it: in force (and how), or off and why. */
export type SandboxJson =
  | { mode: "workspace-write" | "read-only"; network: "on" | "off"; engine: "bubblewrap" }
  | { mode: "off"; reason: string };

/**
 * What the person must see to approve a call, computed once in core so no host recomputes it.
 * diff: old_text null for a new file. diff_unavailable: an edit whose diff cannot be shown, and why
 * ("this edit will fail: SEARCH block 1 not found", "no diff shown: a.bin is a binary file").
 * mcp: for a resource, tool is its uri.
 */
export type ApprovalPreview =
  | { type: "diff"; path: string; old_text: string | null; new_text: string }
  | { type: "diff_unavailable"; path: string; reason: string }
  | { type: "command"; command: string; cwd: string; risk: "safe" | "needs_approval"; reasons: string[]; sandbox: SandboxJson }
  | { type: "browser"; action: string; url?: string }
  | { type: "mcp"; server: string; tool: string; arguments: Record<string, unknown> }
  | { type: "paths"; paths: string[] };

/** What an approval asks the person about; `suggested_rule` is what "always allow" would add (absent for protected files). */
export type ApprovalJson = {
  category: ApprovalCategory;
  summary: string;
  preview?: ApprovalPreview;
  protected?: { path: string; reason: string };
  suggested_rule?: string;
};

/** One problem a language server reported: 1-based line and column. */
export type ProblemJson = { line: number; column: number; severity: "error" | "warning"; message: string; code?: string };

export type AssistantContentJson =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  /** An encrypted (redacted) thinking block: kept in the journal and sent back, its data never shown. */
  | { type: "redacted_thinking" }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export type ResultSubtype =
  | "success"
  | "needs_input"
  | "error_max_turns"
  | "error_mistake_limit"
  | "error_loop_detected"
  | "error_max_budget_usd"
  | "error_during_execution"
  | "error_aborted";

export type AgentEvent =
  | {
      type: "system";
      subtype: "init";
      session_id: string;
      cwd: string;
      model: string;
      provider: string;
      protocol: ProtocolName;
      mode: Mode;
      tools: string[];
      permissionMode: "default" | "yolo";
      auto_approve: ApprovalCategory[];
      /** The OS sandbox commands and stdio MCP servers run in, or why there is none. */
      sandbox: SandboxJson;
    }
  | {
      type: "system";
      subtype: "api_retry";
      attempt: number;
      max_retries: number;
      retry_delay_ms: number;
      error_status: number | null;
      error: string;
    }
  | { type: "system"; subtype: "fallback_model"; from_model: string; to_model: string; error: string }
  | { type: "system"; subtype: "notice"; level: "info" | "warning"; message: string }
  | { type: "system"; subtype: "mode"; mode: Mode; reason: string }
  /** The conversation was shrunk to fit the window (Claude Code's compact_boundary). */
  | {
      type: "system";
      subtype: "compact_boundary";
      compact_metadata: { trigger: "auto" | "manual"; pre_tokens: number; post_tokens: number; actions: Array<"dedupe" | "shrink_calls" | "truncate" | "compact"> };
    }
  | { type: "turn_start"; turn: number; reason: string }
  /**
   * The host opened the task for a person (the session runner's first event for it): a new task, or
   * a stored one carried on (`resumed`: how it was left; its recorded events were replayed before).
   * `context_window`: the model's window in tokens, null when unknown (a record written before it
   * was carried has none), so a host can show how full it is.
   */
  | {
      type: "session_opened";
      task_id: string;
      title: string;
      cwd: string;
      model: string;
      provider: string;
      context_window: number | null;
      mode: Mode;
      resumed?: { status: string; interrupted: boolean };
    }
  /**
   * The person's message to the task, as they wrote it (Cairn's wording around it, for a resume or
   * after a stop, is not part of it); `images`: how many pictures went with it.
   */
  | { type: "user_message"; text: string; images?: number }
  /**
   * A model response begins to stream: each attempt (a retry after a dropped stream) and each
   * continuation (after the output limit) starts again. The text_delta and reasoning_delta events
   * that follow carry the same `message_id`, which the complete `assistant` event keeps.
   */
  | { type: "message_start"; message_id: string }
  /** Streaming prose of one model response; see message_start and stream_discarded. */
  | { type: "text_delta"; message_id: string; text: string }
  | { type: "reasoning_delta"; message_id: string; text: string }
  /** A retry threw away what this message streamed since its last message_start (earlier continuations stay). */
  | { type: "stream_discarded"; message_id: string; reason: string }
  /**
   * The task waits for the person: a plan to approve, whether to go on (max turns, a loop), or a
   * hand-off to a fresh task (`tool_use_id`: the new_task call). Approvals wait as tool_call_update
   * awaiting_approval, questions as question. A plan carries `estimate`: what its Act phase should
   * take (see runtime/plan-estimate.ts), for the person to agree a budget with the approval.
   */
  | { type: "awaiting"; kind: "plan" | "continue" | "handoff"; text: string; tool_use_id?: string; estimate?: PlanEstimate }
  /**
   * The person answered what the task waited for (`text`: an answer or feedback; an approval's
   * decision is on its tool_call_update; `budget_usd`: a plan approved with this task budget).
   */
  | { type: "answered"; kind: "question" | "plan" | "continue" | "handoff"; approved?: boolean; text?: string; tool_use_id?: string; budget_usd?: number }
  /** The work goes on in a fresh task (new_task agreed to, /newtask): `task_id` is the new task, whose events follow; `context` is its first message. */
  | { type: "handoff"; from_task_id: string; task_id: string; context: string }
  /** The person took the task back to a checkpoint: its files, its conversation (to `message_index`), or both. */
  /** `checkpoint`: its number in the task's list, from 1 (absent in tasks recorded before it was given). */
  | { type: "restored"; hash: string; message_index: number; what: "files" | "conversation" | "both"; checkpoint?: number }
  /** A piece of a tool call still streaming: text of one parameter (xml), or of the raw JSON arguments (native, param null). */
  | { type: "tool_call_delta"; id: string; name: string; param: string | null; text: string }
  /** A complete tool call, before anything is decided about it. `locations`: the absolute paths it touches. */
  | {
      type: "tool_call";
      tool_use_id: string;
      name: string;
      kind: ToolKind | "unknown";
      input: Record<string, unknown>;
      summary: string;
      status: "pending";
      locations: string[];
    }
  | { type: "tool_call_update"; tool_use_id: string; name: string; status: "awaiting_approval"; approval: ApprovalJson }
  /**
   * `decision`: present when the call needed an approval. `preview`: an edit's diff (or why there is
   * none), computed before it runs, when no approval already carried it (auto-approve, yolo, a rule).
   */
  | { type: "tool_call_update"; tool_use_id: string; name: string; status: "running"; decision?: Decision; preview?: ApprovalPreview }
  /** The end of a call; `denied` always carries its decision. */
  | { type: "tool_call_update"; tool_use_id: string; name: string; status: ToolCallEnd; content: string; is_error: boolean; decision?: Decision }
  /** Live output of a running call (command output). */
  | { type: "tool_output"; tool_use_id: string; text: string }
  /** replace_in_file applied in memory while its diff streams (a live diff view); the file changes when the call runs. */
  | {
      type: "edit_preview";
      tool_use_id: string;
      path: string;
      blocks_applied: number;
      changed_range: { start_line: number; line_count: number };
      preview: string;
    }
  /** A complete assistant message, as Claude Code's stream-json `assistant` event. */
  | {
      type: "assistant";
      message: {
        id: string;
        role: "assistant";
        model: string;
        content: AssistantContentJson[];
        stop_reason: string;
        usage: UsageJson;
      };
      session_id: string;
    }
  /** The workspace was checkpointed; restoring it (and the conversation to `message_index`) undoes what came after. */
  | { type: "checkpoint"; hash: string; message_index: number; label: string; changed_files: number }
  /** The model's checklist of the task (the focus chain), each time it changes. */
  | { type: "task_progress"; items: Array<{ text: string; done: boolean }> }
  /** One request's usage and cost, the task's cost so far, and its budget then (--max-budget-usd or one agreed with a plan), when it has one. */
  | { type: "usage"; model: string; usage: UsageJson; cost_usd: number | null; total_cost_usd: number | null; budget_usd?: number }
  | { type: "question"; tool_use_id: string; question: string; options: string[] }
  /**
   * The errors an edit introduced in a file (not those it already had), as its language server
   * reported them right after the call wrote it; the call's result tells the model the same.
   */
  | { type: "diagnostics"; tool_use_id: string; path: string; server: string; problems: ProblemJson[] }
  /**
   * A sub-agent of a use_subagents call, shown under that call (`parent_tool_use_id`): it started
   * (activity: its prompt), took a step (activity: the call's summary), or ended (activity: the
   * first line of its report; usage and cost are its own, already added to the parent's).
   */
  | {
      type: "subagent";
      parent_tool_use_id: string;
      index: number;
      task_id: string;
      status: "running" | "completed" | "failed";
      activity: string;
      usage?: UsageJson;
      cost_usd?: number | null;
    }
  | { type: "error"; message: string; kind: string }
  | {
      type: "result";
      subtype: ResultSubtype;
      is_error: boolean;
      result: string;
      num_turns: number;
      duration_ms: number;
      duration_api_ms: number;
      total_cost_usd: number | null;
      usage: UsageJson;
      session_id: string;
      permission_denials: Array<{ tool_name: string; tool_use_id: string; tool_input: Record<string, unknown> }>;
      /** For needs_input: the question (and its options) the person must answer. */
      question?: { text: string; options: string[] };
      /** For needs_input in Plan mode: the plan awaiting the person's approval, and what its Act phase should take. */
      plan?: string;
      plan_estimate?: PlanEstimate;
      /** For /newtask: the opening message of the fresh task that carries this work on. */
      new_task?: string;
      /** For success: a command the model suggests to show the result. */
      command?: string;
    };

export type AgentEventType = AgentEvent["type"];
