import type { AgentEvent, ApprovalJson, ApprovalPreview, Decision, ProblemJson, ToolCallStatus, ToolKind, UsageJson } from "./agent-event.js";

/** The end of a command's output kept on its card: a long build's whole output is not held (nor copied) while it streams. */
export const MAX_CARD_OUTPUT_CHARS = 64 * 1024;

/** One sub-agent of a use_subagents call, as its last subagent event left it. */
export type SubagentRecord = {
  index: number;
  task_id: string;
  status: "running" | "completed" | "failed";
  /** Its prompt, then each step's summary, then the first line of its report. */
  activity: string;
  usage?: UsageJson;
  cost_usd?: number | null;
};

/** The errors a language server found in one file an edit wrote (a diagnostics event). */
export type DiagnosticsRecord = { path: string; server: string; problems: readonly ProblemJson[] };

/** One tool call as a host shows it, folded from its events. */
export type ToolCallRecord = {
  tool_use_id: string;
  name: string;
  kind: ToolKind | "unknown";
  input: Record<string, unknown>;
  summary: string;
  status: ToolCallStatus;
  /** The absolute paths the call touches. */
  locations: readonly string[];
  approval?: ApprovalJson;
  /** What the call would do, as core previewed it once: its approval's preview, or an edit's diff from its running update. */
  preview?: ApprovalPreview;
  decision?: Decision;
  /** Live output so far (command output): its last MAX_CARD_OUTPUT_CHARS characters. */
  output: string;
  /** Characters and line breaks of all the output, including what `output` no longer holds. */
  output_chars: number;
  output_lines: number;
  /** The result the model got, once the call has ended. */
  content?: string;
  is_error?: boolean;
  /** The problems its edits introduced, one entry per file as reported. */
  diagnostics: readonly DiagnosticsRecord[];
  /** use_subagents' sub-agents, by index. */
  subagents: readonly SubagentRecord[];
};

function lineBreaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** The id of the call an event is about, for the events that fold into a call's record. */
export function toolCallIdOf(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "tool_call":
    case "tool_call_update":
    case "tool_output":
    case "diagnostics":
      return event.tool_use_id;
    case "subagent":
      return event.parent_tool_use_id;
    default:
      return undefined;
  }
}

/**
 * Folds one event into the record of the call it is about (the fold's card reducer). Pure: returns
 * a new record, or the given one (same object) when the event does not change it. A tool_call
 * starts a record; updates for a call never announced give undefined.
 */
export function foldToolCall(record: ToolCallRecord | undefined, event: AgentEvent): ToolCallRecord | undefined {
  if (event.type === "tool_call") {
    return {
      tool_use_id: event.tool_use_id,
      name: event.name,
      kind: event.kind,
      input: event.input,
      summary: event.summary,
      status: "pending",
      locations: event.locations,
      output: "",
      output_chars: 0,
      output_lines: 0,
      diagnostics: [],
      subagents: [],
    };
  }
  if (!record) return undefined;
  switch (event.type) {
    case "tool_output": {
      const output = record.output + event.text;
      return {
        ...record,
        output: output.length > MAX_CARD_OUTPUT_CHARS ? output.slice(output.length - MAX_CARD_OUTPUT_CHARS) : output,
        output_chars: record.output_chars + event.text.length,
        output_lines: record.output_lines + lineBreaks(event.text),
      };
    }
    case "tool_call_update":
      if (event.status === "awaiting_approval") return { ...record, status: event.status, approval: event.approval, ...(event.approval.preview ? { preview: event.approval.preview } : {}) };
      if (event.status === "running") return { ...record, status: event.status, ...(event.decision ? { decision: event.decision } : {}), ...(event.preview ? { preview: event.preview } : {}) };
      return { ...record, status: event.status, content: event.content, is_error: event.is_error, ...(event.decision ? { decision: event.decision } : {}) };
    case "diagnostics":
      if (event.problems.length === 0) return record;
      return { ...record, diagnostics: [...record.diagnostics, { path: event.path, server: event.server, problems: event.problems }] };
    case "subagent": {
      const { type: _type, parent_tool_use_id: _parent, ...agent } = event;
      const subagents = record.subagents.filter((s) => s.index !== event.index);
      subagents.push(agent);
      subagents.sort((a, b) => a.index - b.index);
      return { ...record, subagents };
    }
    default:
      return record;
  }
}
