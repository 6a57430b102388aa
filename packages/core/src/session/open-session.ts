import path from "node:path";
import { Checkpoints } from "../checkpoints/index.js";
import { loadHooks, type HookRunner } from "../hooks/index.js";
import { McpConfigError, McpHub, type ServerConfig } from "../mcp/index.js";
import type { Host } from "../runtime/host.js";
import type { JournalOptions } from "../runtime/task-options.js";
import { Task } from "../runtime/task.js";
import { cairnHome } from "../storage/cairn-home.js";
import { loadPermissionRules } from "../storage/permission-store.js";
import { TaskNotFoundError, TaskStore, type TaskMetadata } from "../storage/task-store.js";
import { stopLeftoverCommands } from "../terminal/leftovers.js";
import type { TextFiles } from "../tools/files/index.js";
import { allTools } from "../tools/registry.js";
import { untrustedNotice } from "../trust/untrusted.js";
import type { Env, SessionOverrides } from "./overrides.js";
import { resolveSettings, type ResolvedSettings } from "./resolve-settings.js";
import { resumedState, type ResumedState } from "./resumed-state.js";
import { SessionError } from "./session-error.js";

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
};

export type OpenSessionOptions = Common & { cwd: string; title: string };
export type ResumeSessionOptions = Common & { id: string };

/** A new task in `cwd`, stored as it runs. Its first message goes to `task.run`. */
export async function openSession(options: OpenSessionOptions): Promise<Session> {
  const notices: string[] = [];
  const settings = resolveSettings(options, notices);
  const store = TaskStore.create(settings.home, {
    task: options.title,
    workspace: settings.cwd,
    provider: settings.model.provider,
    model: settings.model.id,
    protocol: settings.protocol,
    mode: settings.mode,
  });
  return assemble({ options, settings, store, notices, journal: { sessionId: store.id, store } });
}

/**
 * A stored task, ready to carry on (word its first message with `resumeMessage`). The store is not
 * claimed yet: call `store.claim()` just before the first run, so a task opened and left at once
 * keeps its status. The task's provider, model, protocol and mode hold unless overridden.
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
  if (meta.status === "running" && !interrupted) throw new SessionError(`Task ${meta.id} is still running (process ${meta.pid}); wait for it or stop it first.`);
  const notices: string[] = [];
  const stored: SessionOverrides = { provider: meta.provider as SessionOverrides["provider"], model: meta.model, protocol: meta.protocol, mode: meta.mode };
  const settings = resolveSettings({ cwd: meta.workspace, home, env, overrides: { ...stored, ...defined(options.overrides ?? {}) } }, notices);
  if (interrupted) {
    const stopped = await stopLeftoverCommands(meta.id);
    if (stopped > 0) notices.push(`stopped ${stopped} command${stopped === 1 ? "" : "s"} still running from the interrupted run.`);
  }
  const { messages, pending, warnings } = store.loadConversation();
  notices.push(...warnings);
  const journal: JournalOptions = { sessionId: meta.id, store, messages, pendingResults: pending, prior: priorOf(meta) };
  const session = await assemble({ options: { ...options, home, env }, settings, store, notices, journal });
  session.resumed = resumedState(store, meta, interrupted, messages);
  return session;
}

type Parts = {
  options: Common;
  settings: ResolvedSettings;
  store: TaskStore;
  notices: string[];
  journal: JournalOptions;
};

async function assemble(parts: Parts): Promise<Session> {
  const { options, settings, store, notices } = parts;
  const hooks = loadHooks({ home: settings.home, cwd: settings.cwd });
  notices.push(...hooks.warnings, ...hooks.untrusted.map(untrustedNotice));
  const checkpoints = await openCheckpoints(settings, notices);
  const mcp = openMcp(settings, options, notices);
  const build = (resolved: ResolvedSettings, journal: JournalOptions, opening: readonly string[]): Task =>
    new Task({
      model: {
        main: resolved.model,
        ...(resolved.fallbackModel ? { fallback: resolved.fallbackModel } : {}),
        ...(resolved.compactionModel ? { compaction: resolved.compactionModel } : {}),
        protocol: resolved.protocol,
        retry: resolved.retry,
      },
      tools: {
        list: allTools,
        scratchDir: path.join(store.dir, "scratch"),
        mentions: true,
        ...(mcp ? { mcp } : {}),
        ...(resolved.settings.browser ? { browser: resolved.settings.browser } : {}),
        ...(resolved.settings.problemsCommand ? { problemsCommand: resolved.settings.problemsCommand } : {}),
        ...(resolved.settings.focusChain ? { focusChain: resolved.settings.focusChain } : {}),
        ...(resolved.settings.toolExecution ? { execution: resolved.settings.toolExecution } : {}),
        ...(options.files ? { files: options.files } : {}),
      },
      workspace: { cwd: resolved.cwd, home: resolved.home, sandbox: resolved.sandbox, ...(checkpoints ? { checkpoints } : {}) },
      policy: {
        mode: resolved.mode,
        yolo: resolved.yolo,
        autoApprove: resolved.autoApprove,
        // "Always allow" answers saved for this workspace or for the person (CAIRN_HOME/permissions.json).
        rules: loadPermissionRules(resolved.home, resolved.cwd),
        ...(resolved.commandPermissions ? { commandPermissions: resolved.commandPermissions } : {}),
        ...(resolved.settings.approvalRequiredCommands ? { approvalRequiredCommands: resolved.settings.approvalRequiredCommands } : {}),
      },
      limits: {
        compaction: resolved.compaction,
        ...(resolved.settings.maxTurns !== undefined ? { maxTurns: resolved.settings.maxTurns } : {}),
        ...(resolved.settings.maxMistakes !== undefined ? { maxMistakes: resolved.settings.maxMistakes } : {}),
        ...(resolved.settings.maxBudgetUsd !== undefined ? { maxBudgetUsd: resolved.settings.maxBudgetUsd } : {}),
      },
      hooks: hookOptions(hooks.hooks, store),
      journal,
      ...(options.host ? { host: options.host } : {}),
      notices: opening,
    });

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
          overrides: { ...defined(options.overrides ?? {}), provider: resolved.model.provider as SessionOverrides["provider"], model: id, mode: snapshot.mode, yolo: resolved.yolo },
        });
        const journal: JournalOptions = {
          sessionId: task.sessionId,
          store,
          messages: snapshot.messages,
          prior: { turns: snapshot.turns, usage: snapshot.usage, costUsd: snapshot.costUsd },
        };
        store.update({ model: next.model.id });
        const moved = session(build(next, journal, []), next, []);
        if (self.resumed) moved.resumed = self.resumed;
        return moved;
      },
      close: async () => {
        await mcp?.close();
      },
    };
    return self;
  };
  return session(build(settings, parts.journal, notices), settings, notices);
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
    turns: meta.turns,
    usage: { inputTokens: u.input_tokens, outputTokens: u.output_tokens, cacheReadTokens: u.cache_read_input_tokens, cacheWriteTokens: u.cache_creation_input_tokens },
    costUsd: meta.totalCostUsd,
  };
}

/** Overrides without the keys a host left undefined, so they do not hide a stored task's own. */
function defined(overrides: SessionOverrides): SessionOverrides {
  return Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as SessionOverrides;
}


