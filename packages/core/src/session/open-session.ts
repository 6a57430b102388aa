import path from "node:path";
import { realpathSync } from "node:fs";
import { Checkpoints } from "../checkpoints/index.js";
import { loadHooks, type HookRunner } from "../hooks/index.js";
import { LanguageServers } from "../lsp/index.js";
import { McpConfigError, McpHub, type ServerConfig } from "../mcp/index.js";
import type { Host } from "../runtime/host.js";
import type { JournalOptions, SharedRules } from "../runtime/task-options.js";
import { Task } from "../runtime/task.js";
import { cairnHome } from "../storage/cairn-home.js";
import { loadPermissionRules } from "../storage/permission-store.js";
import { loadTaskRules } from "../storage/task-rules.js";
import type { ActiveRule } from "../policy/decide-call.js";
import { TaskNotFoundError, TaskStore, type TaskMetadata } from "../storage/task-store.js";
import { TaskInUseError } from "../storage/task-lock.js";
import { stopLeftoverCommands } from "../terminal/leftovers.js";
import type { TextFiles } from "../tools/files/index.js";
import type { CommandExecutor } from "../terminal/command-executor.js";
import type { Hooks } from "../runtime/hooks.js";
import { allTools } from "../tools/registry.js";
import { newTaskTool } from "../tools/new-task.js";
import { useSubagentsTool } from "../tools/use-subagents.js";
import type { AnyTool } from "../tools/tool.js";
import { loadAgentDefinitions, type AgentDefinition } from "../prompt/agent-definitions.js";
import type { TaskLink } from "../storage/task-store.js";
import { readOnlySubagents, subagentRunner, type SubagentSpec } from "./subagents.js";
import { untrustedNotice } from "../trust/untrusted.js";
import type { Env, SessionOverrides } from "./overrides.js";
import { resolveSettings, resolveSettingsDiscovering, type ResolvedSettings } from "./resolve-settings.js";
import { resumedState, type ResumedState } from "./resumed-state.js";
import { SessionError } from "./session-error.js";

/** How many fresh tasks a chain of hand-offs may add after its first (the maxHandoffs setting). */
export const defaultMaxHandoffs = 3;

/** One task opened for a host: the Task to run, and what it holds that the host closes with it. */
export type Session = {
  id: string;
  task: Task;
  store: TaskStore;
  settings: ResolvedSettings;
  checkpoints?: Checkpoints;
  /** The workspace's MCP servers (started lazily). */
  mcp?: McpHub;
  /** For a stored task: how it was left. */
  resumed?: ResumedState;
  /** One-line notices for the person (untrusted config, checkpoints off, sandbox, MCP problems); the task's first run also emits them as system notice events. */
  notices: string[];
  /** The same task with another model (between runs): conversation, totals, journal, MCP and checkpoints carry over. */
  withModel(id: string): Session;
  /** Ends what the session holds beyond the task (MCP server connections). */
  close(): Promise<void>;
};

type Common = {
  home?: string;
  env?: Env;
  overrides?: SessionOverrides;
  host?: Host;
  /** More MCP servers from the host (an editor's), replacing configured ones of the same name. */
  mcpServers?: ServerConfig[];
  /** The host's own text files (an editor's buffers): file tools read and write workspace files there. */
  files?: TextFiles;
  /** The host's own command executor (a remote workspace): execute_command runs there instead of in the local sandbox. */
  commands?: CommandExecutor;
  /** The loop's hooks for SDK hosts (beforeModel, beforeTool...; see runtime/hooks.ts). */
  hooks?: Hooks;
  /** The transport under every model request of the session (cairn run --record's, cairn replay's); default the network. */
  modelFetch?: typeof globalThis.fetch;
  /** false: the endpoint is not asked what its models take (cairn replay, whose recording says it). */
  discover?: boolean;
};

export type OpenSessionOptions = Common & {
  cwd: string;
  title: string;
  /** The task this one continues (new_task) or serves (a sub-agent): both tasks' metadata record the link. */
  parent?: { store: TaskStore; relation: TaskLink["relation"] };
  /** A sub-agent's task: its own tools and instructions, no sub-agents or hand-offs of its own. */
  subagent?: SubagentSpec;
};
export type ResumeSessionOptions = Common & {
  id: string;
  /**
   * The folder to carry it on in (an editor's open project); absent, the workspace it was stored
   * with. Another folder moves the task there: its record names the new one, and its "always allow
   * for this task" rules, granted for the other folder's files, are dropped, with a notice.
   */
  cwd?: string;
};

/** A new task in `cwd`, stored as it runs. Its first message goes to `task.run` (a host uses SessionRunner, which does that and the rest of a session). */
export async function openSession(options: OpenSessionOptions): Promise<Session> {
  const notices: string[] = [];
  const settings = await resolveSettingsDiscovering({ ...options, overrides: handoffOverrides(options) }, notices);
  const store = TaskStore.create(settings.home, {
    task: options.title,
    workspace: settings.cwd,
    provider: settings.model.provider,
    model: settings.model.id,
    protocol: settings.protocol,
    mode: settings.mode,
    ...(options.parent ? { parent: { id: options.parent.store.id, relation: options.parent.relation } } : {}),
  });
  options.parent?.store.addChild({ id: store.id, relation: options.parent.relation });
  const own = { options: { ...options, ...(options.subagent ? { host: undefined } : {}) }, settings, store, notices, journal: { sessionId: store.id, store } };
  return assemble({ ...own, ...(options.subagent ? { subagent: options.subagent } : {}) });
}

/**
 * A hand-off carries its parent's mode (as recorded) unless the host names one (the person
 * switched): a task in PLAN mode never hands over to one in ACT by default.
 */
function handoffOverrides(options: OpenSessionOptions): SessionOverrides | undefined {
  if (options.parent?.relation !== "handoff" || options.overrides?.mode !== undefined) return options.overrides;
  return { ...options.overrides, mode: options.parent.store.metadata().mode };
}

/**
 * A stored task, ready to carry on (word its first message with `resumeMessage`). The store is not
 * claimed yet: call `store.claim()` just before the first run, so a task opened and left at once
 * keeps its status. The task's provider, model, protocol and mode hold unless overridden.
 * SessionRunner.resume does all this for a host.
 */
export async function resumeSession(options: ResumeSessionOptions): Promise<Session> {
  const env = options.env ?? process.env;
  const home = options.home ?? cairnHome(env);
  let store: TaskStore;
  try {
    store = TaskStore.open(home, options.id);
  } catch (error) {
    if (error instanceof TaskNotFoundError) throw new SessionError(error.message);
    throw error;
  }
  const meta = store.metadata();
  const interrupted = store.interrupted;
  // One writer per task: taken before anything else happens (leftover commands stopped, files read),
  // so of two hosts resuming it at once exactly one goes on. Held until the session is closed.
  try {
    store.lock();
  } catch (error) {
    if (error instanceof TaskInUseError) throw new SessionError(error.message);
    throw error;
  }
  try {
    return await resumeLocked(options, store, meta, interrupted, home, env);
  } catch (error) {
    store.release();
    throw error;
  }
}

async function resumeLocked(options: ResumeSessionOptions, store: TaskStore, meta: TaskMetadata, interrupted: boolean, home: string, env: Env): Promise<Session> {
  const notices: string[] = [];
  const stored: SessionOverrides = { provider: meta.provider as SessionOverrides["provider"], model: meta.model, protocol: meta.protocol, mode: meta.mode };
  const settings = await resolveSettingsDiscovering({ cwd: options.cwd ?? meta.workspace, home, env, ...(options.modelFetch ? { modelFetch: options.modelFetch } : {}), overrides: { ...stored, ...defined(options.overrides ?? {}) } }, notices);
  const movedFrom = settings.cwd !== path.resolve(meta.workspace) ? meta.workspace : undefined;
  if (movedFrom) notices.push(`this task worked in ${movedFrom}; it now works in ${settings.cwd}${meta.taskRules?.length ? ', without its "always allow for this task" rules (they were for the other folder)' : ""}.`);
  if (interrupted) {
    const stopped = await stopLeftoverCommands(meta.id);
    if (stopped > 0) notices.push(`stopped ${stopped} command${stopped === 1 ? "" : "s"} still running from the interrupted run.`);
  }
  const { messages, pending, warnings } = store.loadConversation();
  notices.push(...warnings);
  // What the person allowed for this task ("always allow for this task") holds again; a damaged rule is dropped, with a notice.
  const taskRules = loadTaskRules(movedFrom ? [] : meta.taskRules, path.join(store.dir, "metadata.json"));
  notices.push(...taskRules.problems);
  const journal: JournalOptions = { sessionId: meta.id, store, messages, pendingResults: pending, prior: priorOf(meta) };
  const session = await assemble({ options: { ...options, home, env }, settings, store, notices, journal, taskRules: taskRules.rules });
  if (movedFrom) store.update({ workspace: settings.cwd, taskRules: [] });
  session.resumed = resumedState(store, movedFrom ? store.metadata() : meta, interrupted, messages, movedFrom);
  return session;
}

type Parts = {
  options: Common;
  settings: ResolvedSettings;
  store: TaskStore;
  notices: string[];
  journal: JournalOptions;
  subagent?: SubagentSpec;
  /** A resumed task's own "always allow" rules (stored in its metadata). */
  taskRules?: ActiveRule[];
};

async function assemble(parts: Parts): Promise<Session> {
  const { options, settings, store, notices } = parts;
  // The workspace's hooks get a command's rights: what they source or run, the model may have written.
  const sandbox = settings.sandbox.sandbox;
  const hooks = loadHooks({ home: settings.home, cwd: settings.cwd, ...(sandbox ? { runner: { sandbox } } : {}) });
  notices.push(...hooks.warnings, ...hooks.untrusted.map(untrustedNotice));
  // A budget with nothing to count against stops nothing: said once, at the start (OpenRouter reports each request's cost itself).
  if (!parts.subagent && settings.settings.maxBudgetUsd !== undefined && !settings.model.info.pricing && settings.model.provider !== "openrouter") {
    notices.push(`no price is known for ${settings.model.id}; --max-budget-usd cannot stop this task — add its price under models in settings.json`);
  }
  // A sub-agent that only reads changes nothing to checkpoint, and gets no MCP tools (they can write).
  const readOnly = parts.subagent?.tools.every((t) => t.kind !== "edit" && t.kind !== "command") === true;
  const checkpoints = readOnly ? undefined : await openCheckpoints(settings, notices);
  const mcp = parts.subagent ? undefined : openMcp(settings, options, notices);
  const tools = parts.subagent ? undefined : taskTools(settings, store, notices);
  // The session's language servers: started on the first file they check, kept warm across its
  // runs (the next prompt in an editor or the web), stopped when it closes. A sub-agent runs once:
  // its task starts and stops its own.
  const languageServers =
    parts.subagent || options.commands || settings.settings.lsp === false
      ? undefined
      : new LanguageServers({ workspace: realpathSync.native(settings.cwd), settings: settings.settings.lsp, sandbox: settings.sandbox.sandbox });
  let current: Task | undefined;
  // "Always allow" answers saved for this workspace or for the person (CAIRN_HOME/permissions.json),
  // and the task's own as they come: one list for the task under every model, and for its sub-agents.
  // A rule granted for the task is kept in its metadata as it is granted (a sub-agent adds to its parent's list, so to its parent's store).
  const rules: SharedRules = parts.subagent?.rules ?? { rules: [...loadPermissionRules(settings.home, settings.cwd), ...(parts.taskRules ?? [])], keep: (rule) => store.addTaskRule(rule.text) };
  // Sub-agents are sessions of their own, opened like this one (settings, policy, sandbox), linked to it.
  const subagents = parts.subagent
    ? undefined
    : subagentRunner({
        agents: tools!.agents,
        budgetLeft: () => budgetLeft(settings, current),
        rules,
        mode: () => current?.snapshot().mode ?? settings.mode,
        open: (spec) =>
          openSession({
            ...options,
            cwd: settings.cwd,
            title: spec.prompt,
            parent: { store, relation: "subagent" },
            subagent: spec,
            // The parent's settings as they were decided for it (approvals, sandbox, command rules, yolo),
            // not read again: a settings file changed since cannot give a sub-agent more than its parent.
            // ACT mode, where attempt_completion is; its tools hold it to the parent's mode (subagentTools).
            overrides: { ...pinned(settings), mode: "act", ...(spec.model ? { model: spec.model } : {}), ...(spec.maxBudgetUsd !== undefined ? { maxBudgetUsd: spec.maxBudgetUsd } : {}) },
          }),
      });
  const build = (resolved: ResolvedSettings, journal: JournalOptions, opening: readonly string[]): Task => {
    current = new Task({
      model: {
        main: resolved.model,
        ...(parts.subagent ? { customInstructions: parts.subagent.instructions } : {}),
        ...(resolved.fallbackModel ? { fallback: resolved.fallbackModel } : {}),
        ...(resolved.compactionModel ? { compaction: resolved.compactionModel } : {}),
        protocol: resolved.protocol,
        retry: resolved.retry,
      },
      tools: {
        list: parts.subagent ? parts.subagent.tools : tools!.list,
        ...(subagents ? { subagents } : {}),
        scratchDir: path.join(store.dir, "scratch"),
        mentions: true,
        ...(mcp ? { mcp } : {}),
        ...(resolved.settings.browser ? { browser: resolved.settings.browser } : {}),
        ...(resolved.settings.problemsCommand ? { problemsCommand: resolved.settings.problemsCommand } : {}),
        // A sub-agent that only reads makes no edit to check: no language server of its own (each costs hundreds of MB).
        ...(readOnly ? { lsp: false as const } : resolved.settings.lsp !== undefined ? { lsp: resolved.settings.lsp } : {}),
        ...(languageServers ? { languageServers } : {}),
        ...(resolved.settings.focusChain ? { focusChain: resolved.settings.focusChain } : {}),
        ...(resolved.settings.toolExecution ? { execution: resolved.settings.toolExecution } : {}),
        ...(options.files ? { files: options.files } : {}),
        ...(options.commands ? { commands: options.commands } : {}),
      },
      workspace: { cwd: resolved.cwd, home: resolved.home, sandbox: resolved.sandbox, ...(checkpoints ? { checkpoints } : {}), ...(resolved.settings.rulesOff ? { rulesOff: resolved.settings.rulesOff } : {}) },
      policy: {
        mode: resolved.mode,
        yolo: resolved.yolo,
        autoApprove: resolved.autoApprove,
        shared: rules,
        ...(resolved.commandPermissions ? { commandPermissions: resolved.commandPermissions } : {}),
        ...(resolved.settings.approvalRequiredCommands ? { approvalRequiredCommands: resolved.settings.approvalRequiredCommands } : {}),
      },
      limits: {
        compaction: resolved.compaction,
        ...(resolved.settings.maxTurns !== undefined ? { maxTurns: resolved.settings.maxTurns } : {}),
        ...(resolved.settings.maxMistakes !== undefined ? { maxMistakes: resolved.settings.maxMistakes } : {}),
        ...(resolved.settings.maxBudgetUsd !== undefined ? { maxBudgetUsd: resolved.settings.maxBudgetUsd } : {}),
        ...(tools ? { handoffs: tools.handoffs } : {}),
      },
      // A sub-agent's calls pass the host's hooks too; its events reach the host through the parent's stream, not onEvent.
      hooks: { ...hookOptions(hooks.hooks, store), ...(options.hooks ? { loop: parts.subagent ? { ...options.hooks, onEvent: undefined } : options.hooks } : {}) },
      journal,
      ...(options.host ? { host: options.host } : {}),
      notices: opening,
    });
    return current;
  };

  const session = (task: Task, resolved: ResolvedSettings, sessionNotices: string[]): Session => {
    const self: Session = {
      id: store.id,
      task,
      store,
      settings: resolved,
      ...(checkpoints ? { checkpoints } : {}),
      ...(mcp ? { mcp } : {}),
      notices: sessionNotices,
      withModel(id: string): Session {
        const snapshot = task.snapshot();
        const next = resolveSettings({
          cwd: resolved.cwd,
          home: resolved.home,
          ...(options.env ? { env: options.env } : {}),
          ...(options.modelFetch ? { modelFetch: options.modelFetch } : {}),
          overrides: { ...defined(options.overrides ?? {}), provider: resolved.model.provider as SessionOverrides["provider"], model: id, mode: snapshot.mode, yolo: resolved.yolo },
        });
        const journal: JournalOptions = {
          sessionId: task.sessionId,
          store,
          messages: snapshot.messages,
          prior: { turns: snapshot.turns, usage: snapshot.usage, costUsd: snapshot.costUsd, ...(snapshot.agreedBudgetUsd !== undefined ? { agreedBudgetUsd: snapshot.agreedBudgetUsd } : {}) },
        };
        store.update({ model: next.model.id });
        const moved = session(build(next, journal, []), next, []);
        if (self.resumed) moved.resumed = self.resumed;
        return moved;
      },
      close: async () => {
        await Promise.all([mcp?.close(), languageServers?.stop()]);
        store.release();
      },
    };
    return self;
  };
  return session(build(settings, parts.journal, notices), settings, notices);
}

/** Every tool of a task a person started: the built-in ones, new_task, and use_subagents listing the agent definitions found here. */
function taskTools(settings: ResolvedSettings, store: TaskStore, notices: string[]): { list: AnyTool[]; agents: AgentDefinition[]; handoffs: { left: number; limit: number } } {
  const loaded = loadAgentDefinitions({ home: settings.home, cwd: settings.cwd });
  notices.push(...loaded.problems, ...(loaded.untrusted ? [untrustedNotice(loaded.untrusted)] : []));
  const last = allTools.filter((t) => t.name === "attempt_completion");
  const list = [...allTools.filter((t) => t.name !== "attempt_completion"), newTaskTool, useSubagentsTool(loaded.agents.map((a) => ({ ...a, readOnly: readOnlySubagents(a) }))), ...last];
  const limit = settings.settings.maxHandoffs ?? defaultMaxHandoffs;
  return { list, agents: loaded.agents, handoffs: { limit, left: limit - handoffDepth(settings.home, store) } };
}

/** How many hand-offs led to this task: its chain of parents it was handed over from. */
function handoffDepth(home: string, store: TaskStore): number {
  let depth = 0;
  let link = store.metadata().parent;
  while (link?.relation === "handoff" && depth < 1000) {
    depth++;
    try {
      link = TaskStore.open(home, link.id).metadata().parent;
    } catch {
      break; // a parent deleted since: the chain is counted as far as it is known
    }
  }
  return depth;
}

/** A session's decided settings as overrides for one opened from it (a sub-agent): the same, whatever the files say by then. */
function pinned(settings: ResolvedSettings): SessionOverrides {
  const { hooks: _hooks, ...decided } = settings.settings;
  return { ...decided, autoApprove: settings.autoApprove, yolo: settings.yolo };
}

/** What the task may still spend, for its sub-agents to share; undefined without a budget. */
function budgetLeft(settings: ResolvedSettings, task: Task | undefined): number | undefined {
  const budget = task?.budgetUsd() ?? settings.settings.maxBudgetUsd;
  if (budget === undefined) return undefined;
  return budget - (task?.costSoFar() ?? 0);
}

function hookOptions(runner: HookRunner | undefined, store: TaskStore) {
  return { ...(runner ? { runner } : {}), transcriptPath: path.join(store.dir, "conversation.jsonl") };
}

/** The workspace's checkpoints, or none (with a notice) when they cannot work here: the task still runs. */
async function openCheckpoints(settings: ResolvedSettings, notices: string[]): Promise<Checkpoints | undefined> {
  if (!settings.checkpoints) return undefined;
  try {
    const lazy = settings.settings.checkpointsLazyAboveFiles;
    return await Checkpoints.open({ workspace: settings.cwd, baseDir: path.join(settings.home, "checkpoints"), ...(lazy !== undefined ? { lazyAboveFiles: lazy } : {}) });
  } catch (error) {
    notices.push(`checkpoints are off for this task: ${(error as Error).message.split("\n")[0]}`);
    return undefined;
  }
}

/** The MCP servers configured for this workspace, with the host's (nothing starts until a tool needs it). */
function openMcp(settings: ResolvedSettings, options: Common, notices: string[]): McpHub | undefined {
  let hub: McpHub;
  try {
    hub = McpHub.load({
      home: settings.home,
      cwd: settings.cwd,
      env: options.env ?? process.env,
      ...(options.mcpServers ? { servers: options.mcpServers } : {}),
      ...(settings.sandbox.sandbox ? { sandbox: settings.sandbox.sandbox } : {}),
    });
  } catch (error) {
    if (error instanceof McpConfigError) throw new SessionError(error.message);
    throw error;
  }
  notices.push(...hub.problems);
  const untrusted = hub.untrusted();
  if (untrusted) notices.push(untrustedNotice(untrusted));
  return hub.servers().length > 0 ? hub : undefined;
}

function priorOf(meta: TaskMetadata): NonNullable<JournalOptions["prior"]> {
  const u = meta.usage;
  return {
    ...(meta.taskProgress ? { taskProgress: meta.taskProgress } : {}),
    ...(typeof meta.agreedBudgetUsd === "number" && meta.agreedBudgetUsd > 0 ? { agreedBudgetUsd: meta.agreedBudgetUsd } : {}),
    turns: meta.turns,
    usage: { inputTokens: u.input_tokens, outputTokens: u.output_tokens, cacheReadTokens: u.cache_read_input_tokens, cacheWriteTokens: u.cache_creation_input_tokens },
    costUsd: meta.totalCostUsd,
    // Script files changed since the task began (in an earlier run too) are asked about again.
    ...(Number.isFinite(Date.parse(meta.createdAt)) ? { startedAt: Date.parse(meta.createdAt) } : {}),
  };
}

/** Overrides without the keys a host left undefined, so they do not hide a stored task's own. */
function defined(overrides: SessionOverrides): SessionOverrides {
  return Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as SessionOverrides;
}


