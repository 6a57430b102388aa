import type { Checkpoints } from "../checkpoints/index.js";
import type { CompactionStrategy } from "../context/fit-context.js";
import type { HookRunner } from "../hooks/index.js";
import type { LanguageServers, LspSettings } from "../lsp/index.js";
import type { McpHub } from "../mcp/index.js";
import type { RetryPolicy } from "../model/retry.js";
import type { Message, Model, Usage } from "../model/types.js";
import type { CommandPermissions, ScriptBaseline } from "../policy/command/index.js";
import type { ActiveRule } from "../policy/decide-call.js";
import type { LoopSettings } from "../policy/loop-detection.js";
import type { ProtocolName } from "../protocol/types.js";
import type { TaskSandbox } from "../sandbox/index.js";
import type { TextFiles } from "../tools/files/index.js";
import type { SubagentRunner } from "../tools/subagent-capability.js";
import type { ToolExecution } from "../storage/settings.js";
import type { CommandExecutor } from "../terminal/command-executor.js";
import type { AnyTool, Mode } from "../tools/tool.js";
import type { AgentEvent } from "../events/index.js";
import type { ApprovalCategory } from "../policy/approval-category.js";
import type { FocusChainSettings, TaskProgressItem } from "./focus-chain.js";
import type { Hooks } from "./hooks.js";
import type { Host } from "./host.js";
import type { TaskJournal } from "../storage/task-journal.js";
import type { PendingResult } from "../storage/task-journal.js";

/** Which model answers, how its tool calls travel and how its requests are retried. */
export type ModelOptions = {
  main: Model;
  /** Takes over when the main model's retries are used up. */
  fallback?: Model;
  /** A cheaper model to write compaction summaries. */
  compaction?: Model;
  protocol?: ProtocolName;
  retry?: Partial<RetryPolicy>;
  customInstructions?: string;
  /** Replaces the built system prompt entirely. */
  systemPrompt?: string;
};

/** What the model can act through. */
export type ToolOptions = {
  list: readonly AnyTool[];
  /** MCP servers for this task: their tools are offered through use_mcp_tool / access_mcp_resource. */
  mcp?: McpHub;
  /** browser_action's page size and Chromium (default 900×600, Chromium found on PATH). */
  browser?: { viewport?: { width: number; height: number }; chromiumPath?: string };
  /** Expand @-mentions in the person's messages (files, folders, URLs, git, @problems). */
  mentions?: boolean;
  /** The checker @problems runs. */
  problemsCommand?: string;
  /** Language servers that check edits (settings.json `lsp`; default: the built-in ones, false: none). */
  lsp?: LspSettings;
  /**
   * The host's own language servers, kept across the task's runs (a session's: an editor's or the
   * web's next prompt finds them warm); the host stops them. Without it each run starts its own
   * (from `lsp`) and stops them when it ends.
   */
  languageServers?: LanguageServers;
  /** The focus chain (task_progress on every tool): on by default, with a reminder every few turns. */
  focusChain?: Partial<FocusChainSettings>;
  /** Where tools spill large outputs (default: a folder in the system temp dir). */
  scratchDir?: string;
  /** The host's own text files (an editor's buffers over ACP): file tools read and write workspace files there. Default: the local disk. */
  files?: TextFiles;
  /** parallel (default): a reply's read-only calls run side by side; sequential: one call after another. */
  execution?: ToolExecution;
  /** The host's own command executor (a remote workspace): execute_command runs there, not in the local sandbox. */
  commands?: CommandExecutor;
  /** Sub-agents for use_subagents (a session supplies them: each runs as a task of its own). */
  subagents?: SubagentRunner;
};

/** The folder the task works in, and what surrounds it. */
export type WorkspaceOptions = {
  cwd: string;
  /**
   * CAIRN_HOME, for the global AGENTS.md. With it, rules and memory files of the workspace go into
   * the system prompt.
   */
  home?: string;
  /** The OS sandbox commands run in (see sandbox/openSandbox); without it commands run unconfined. */
  sandbox?: TaskSandbox;
  /** Checkpoints of the workspace (a shadow git repository): one after every step that can change files. */
  checkpoints?: Checkpoints;
  /** Add the workspace listing to the first message and a time/mode/context line to every turn (default true). */
  environmentDetails?: boolean;
  /** Rules files the person switched off (settings' rulesOff): left out of the prompt. */
  rulesOff?: readonly string[];
};

/** What the task may do without asking, and what it may never do. */
export type PolicyOptions = {
  mode?: Mode;
  yolo?: boolean;
  autoApprove?: readonly ApprovalCategory[];
  /** allow/deny rules for commands; they apply in every mode, yolo included. */
  commandPermissions?: CommandPermissions;
  /** Glob patterns of commands that always need approval, added to the built-in list. */
  approvalRequiredCommands?: string[];
  /** "Always allow" rules in force from the start (saved ones: storage's loadPermissionRules). */
  rules?: readonly ActiveRule[];
  /**
   * The live rule list to use instead of a copy of `rules`: tasks given the same one (a parent and
   * its sub-agents, which are one task to the person) see each other's "always allow" answers.
   */
  shared?: SharedRules;
};

/**
 * A list of "always allow" rules that several tasks read and add to. `keep` stores a rule granted
 * for the task with the task (the session's store), so resuming it does not ask again.
 */
export type SharedRules = {
  rules: ActiveRule[];
  keep?(rule: ActiveRule): void;
  /** The workspace's script files as the first of these tasks began (the parent's, for its sub-agents). */
  scripts?: ScriptBaseline;
};

/** When the task stops on its own, and how its conversation is kept inside the model's window. */
export type LimitOptions = {
  maxTurns?: number;
  /** Consecutive mistakes (no tool used, invalid input, failed tools) before the task stops. */
  maxMistakes?: number;
  /** Continuations of a reply cut by the output-token limit. */
  maxContinuations?: number;
  /** Stops before a request once the task has cost this much (USD). */
  maxBudgetUsd?: number;
  loopDetection?: Partial<LoopSettings>;
  /** Default auto: summarise when the window is full. */
  compaction?: CompactionStrategy;
  /** Hand-offs (new_task) left in this task's chain, and the chain's limit; without it new_task is not limited. */
  handoffs?: { left: number; limit: number };
};

export type HookOptions = {
  /** The program's hooks (SDK hosts); they run before the shell hooks. */
  loop?: Hooks;
  /** Hook commands from settings (Claude Code's contract), adapted to Hooks by shellHooks (see hooks/). */
  runner?: HookRunner;
  /** The conversation file hooks are told about (transcript_path). */
  transcriptPath?: string;
};

/** Where the task writes down what happens, and what it starts from when carried on. */
export type JournalOptions = {
  sessionId?: string;
  /** Where the task writes down what happens as it happens (see TaskStore). */
  store?: TaskJournal;
  /** Messages to start from (a restored conversation). */
  messages?: Message[];
  /** Results of calls recorded after the last message, when resuming a task cut by a crash. */
  pendingResults?: PendingResult[];
  /** Totals of earlier runs of a resumed task, so its record keeps adding up. */
  prior?: {
    turns: number;
    usage: Usage;
    costUsd: number | null;
    taskProgress?: TaskProgressItem[];
    /** When the task began (ms): script files changed since then count as changed. */
    startedAt?: number;
    /** A budget agreed with an approved plan in an earlier run (USD). */
    agreedBudgetUsd?: number;
  };
};

/** A Task's options, grouped by concern (hosts normally get them from session/openSession). */
export type TaskOptions = {
  model: ModelOptions;
  tools: ToolOptions;
  workspace: WorkspaceOptions;
  policy?: PolicyOptions;
  limits?: LimitOptions;
  hooks?: HookOptions;
  journal?: JournalOptions;
  host?: Host;
  /** One-line notices from opening the task (settings, trust, sandbox), emitted after system/init of its first run. */
  notices?: readonly string[];
};

export type TaskResult = Omit<Extract<AgentEvent, { type: "result" }>, "type">;

export type TaskSnapshot = {
  sessionId: string;
  mode: Mode;
  messages: Message[];
  turns: number;
  usage: Usage;
  costUsd: number | null;
  /** A budget agreed with an approved plan (USD), which the task keeps to under another model too. */
  agreedBudgetUsd?: number;
};

/**
 * Why the loop goes round again. Retries, fallback and output-limit continuations happen
 * inside a turn (runTurn), since they complete the same assistant message.
 */
export type Transition = "start" | "next_turn" | "no_tool_nudge" | "compact_retry";
