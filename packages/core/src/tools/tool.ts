import type { z } from "zod";
import type { ApprovalPreview, ToolKind } from "../events/index.js";
import type { ImagePart, TextPart, Usage } from "../model/types.js";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import type { Mode } from "../policy/mode.js";
import type { EditChecks } from "../lsp/index.js";
import type { Terminal } from "../terminal/index.js";
import type { PreviewedFiles } from "./edit/previewed-file.js";
import type { HostTexts, TextFiles } from "./files/text-files.js";
import type { SubagentCapability } from "./subagent-capability.js";

export type { ToolKind, Mode };

/** What a call touches, so policy can decide approval and the workspace boundary without knowing the tool. */
export type ToolAccess =
  | { type: "read"; path: string }
  | { type: "edit"; path: string }
  | { type: "none" };

/** The result the model gets back. Failures are data: `isError` with a message that says what to do next. */
export type ToolResult = {
  content: string | Array<TextPart | ImagePart>;
  isError?: boolean;
  /** Control flow the loop acts on after the result is recorded. */
  control?:
    | { type: "complete"; result: string; command?: string }
    | { type: "ask"; question: string; options: string[] }
    /** A plan presented in Plan mode, for the person to approve (then Act) or refine. */
    | { type: "plan"; plan: string }
    /** new_task: hand the work over to a fresh task that starts from `context` alone. */
    | { type: "new_task"; context: string };
  /** Model use the call caused besides the task's own requests (sub-agents): added to the task's totals. */
  spent?: { usage: Usage; costUsd: number | null };
};

/**
 * What a preview may read: the workspace, through the ignore rules. `hostTexts`, when the host has
 * its own files (an editor's buffers): their text, read ahead; workspace files are previewed from
 * it alone, as the call will read them, so the diff approved is the diff applied. `previewed`: where
 * the preview notes what it started from, for the call to check before it writes.
 */
export type PreviewContext = { cwd: string; ignore: IgnoreRules; hostTexts?: HostTexts | undefined; previewed?: PreviewedFiles | undefined };

/** Everything a tool may use. Host capabilities are passed in, never imported. */
export type ToolContext = {
  /** Absolute, real path of the workspace root. */
  cwd: string;
  signal: AbortSignal;
  /** Resolves a model-supplied path against the workspace. */
  resolvePath(path: string): string;
  /** Streams progress (command output, previews) to the host. */
  emitOutput(text: string): void;
  /** .cairnignore / .clineignore: listing and search tools leave these paths out. */
  ignore: IgnoreRules;
  /**
   * True when this call was approved while its paths led outside the workspace (read-external,
   * edit-external). Without it, file tools refuse a path whose real location is outside when they
   * use it: a link swapped after approval cannot carry the call out.
   */
  outsideApproved?: boolean;
  /** Real folders outside the workspace a read may use without approval: the listed skills' folders. */
  readRoots?: readonly string[] | undefined;
  /** A folder of this task's where a tool may spill output too large for the model (created on demand). */
  scratchDir: string;
  /** Whether the model takes images (read_file returns pictures only then). */
  modelSupportsImages: boolean;
  /** This task's commands, including those still running in the background. */
  terminal: Terminal;
  /** The host's own text files (an editor's buffers): workspace files are read and written there. Default: the local disk. */
  files?: TextFiles | undefined;
  /** What this call's edit preview started from: an edit refuses to write over a file changed since (changedSincePreview). */
  previewed?: PreviewedFiles | undefined;
  /** Sub-agents the session lends this call (use_subagents); absent where no session gives them. */
  subagents?: SubagentCapability | undefined;
  /** Hand-offs (new_task) this task may still make in its chain; absent: no limit known. */
  handoffs?: { left: number; limit: number } | undefined;
  /** The task's language servers: an edit reports the errors it introduced, a read warms the file's server. Absent: none. */
  checks?: EditChecks | undefined;
};

export type Tool<S extends z.ZodObject = z.ZodObject> = {
  name: string;
  /** What the model reads about the tool. */
  description: string;
  /**
   * For rarely used tools: one line that stands for the description (with a schema without
   * descriptions) until the model first calls the tool; from then on it is offered in full. Keeps
   * the first request small without taking any tool away (see brief-tools.ts).
   */
  brief?: string;
  /** Parameters; one schema drives validation, the native JSON schema and the XML prompt. */
  parameters: S;
  /** A JSON schema sent to native function calling instead of the one derived from `parameters` (MCP tools). */
  inputJsonSchema?: Record<string, unknown>;
  /** Per-parameter: keep whitespace exactly (file content, diffs) instead of trimming. */
  rawParameters?: ReadonlyArray<keyof z.infer<S> & string>;
  kind: ToolKind;
  /**
   * True for a tool of another kind that changes nothing anywhere (no file, process, page or remote
   * state): several of its calls in one reply may run side by side, like reads (see call-scheduler.ts).
   */
  readOnly?: boolean;
  /**
   * Per call, whether it changes nothing anywhere, where the tool's kind cannot say for every input:
   * use_subagents is a read when its sub-agents only read, but an agent definition may give them edit
   * tools. Overrides `kind`/`readOnly` for running calls side by side and for the checkpoint before
   * a write. Gets the input as the model sent it (not yet validated).
   */
  readOnlyFor?(input: Record<string, unknown>): boolean;
  modes: readonly Mode[];
  /** The paths a call reads or edits. Defaults to none. */
  access?(input: z.infer<S>): ToolAccess[];
  /** True when this call is approved by configuration of its own (an MCP server's autoApprove list). */
  autoApproved?(input: z.infer<S>): boolean;
  /**
   * What the person sees before approving the call (an edit's diff), computed once here so no
   * host recomputes it; undefined when it cannot be computed. Reads only, never changes a file.
   */
  preview?(input: z.infer<S>, ctx: PreviewContext): ApprovalPreview | undefined;
  /** One line for people: "read src/a.ts". */
  summarize?(input: z.infer<S>): string;
  execute(input: z.infer<S>, ctx: ToolContext): Promise<ToolResult>;
};

/** Identity function that keeps the schema's inferred type attached to `execute`. */
export function defineTool<S extends z.ZodObject>(tool: Tool<S>): Tool<S> {
  return tool;
}

// Tools are stored heterogeneously; `any` is confined to this alias.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;
