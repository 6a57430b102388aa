import {
  cairnHome,
  resumeText,
  stopLeftoverCommands,
  Task,
  TaskNotFoundError,
  TaskStore,
  type AgentEvent,
  type Checkpoints,
  type Host,
  type McpHub,
  type TaskMetadata,
  type Usage,
} from "@cairn/core";
import { resolveRunConfig, type RunConfig } from "./config.js";
import type { Io } from "./headless.js";
import type { RunArgs } from "./run-args.js";
import { openCheckpoints, openMcp, taskOptionsFrom } from "./task-options.js";
import { UsageError } from "./usage-error.js";

/**
 * Opening a task for a host: a new one, or a stored one carried on. This is the logic of
 * `cairn run` and `cairn resume` with the host passed in, so the interactive UI and the headless
 * commands open tasks the same way. Close it with `closeTask` when the session ends.
 */
export type OpenedTask = {
  task: Task;
  store: TaskStore;
  config: RunConfig;
  checkpoints: Checkpoints | undefined;
  /** The workspace's MCP servers (started lazily), to close when the session ends. */
  mcp: McpHub | undefined;
  /** For a stored task: how it was left, to word the message that carries it on. */
  resumed?: ResumedState;
};

export type ResumedState = {
  meta: TaskMetadata;
  interrupted: boolean;
  /** Its last recorded events (no deltas), to show where it stopped. */
  events: AgentEvent[];
  /** A question or plan it was waiting on. */
  question?: { text: string; options: string[] };
  plan?: string;
};

function fromUsageJson(u: TaskMetadata["usage"]): Usage {
  return { inputTokens: u.input_tokens, outputTokens: u.output_tokens, cacheReadTokens: u.cache_read_input_tokens, cacheWriteTokens: u.cache_creation_input_tokens };
}

/** A new task, stored as it runs (what `cairn run` does). The first message is given to `task.run` later. */
export async function startTask(args: RunArgs, title: string, io: Io, host: Host, mode: "act" | "plan"): Promise<OpenedTask> {
  const config = resolveRunConfig(args, io.env);
  const store = TaskStore.create(config.home, {
    task: title,
    workspace: config.cwd,
    provider: config.model.provider,
    model: config.model.id,
    protocol: config.protocol,
    mode,
  });
  const checkpoints = await openCheckpoints(config, io);
  const mcp = openMcp(config, io);
  const options = taskOptionsFrom(config, args, mode, store, io);
  const task = new Task({
    ...options,
    tools: { ...options.tools, ...(mcp ? { mcp } : {}) },
    workspace: { ...options.workspace, ...(checkpoints ? { checkpoints } : {}) },
    journal: { sessionId: store.id, store },
    host,
  });
  return { task, store, config, checkpoints, mcp };
}

/**
 * A stored task, ready to carry on (what `cairn resume` does before it sends the message). The
 * store is not claimed yet: call `store.claim()` just before the first run, so a task opened and
 * left at once keeps its status.
 */
export async function reopenTask(args: RunArgs, id: string, io: Io, host: Host): Promise<OpenedTask> {
  const home = cairnHome(io.env);
  let store: TaskStore;
  try {
    store = TaskStore.open(home, id);
  } catch (error) {
    if (error instanceof TaskNotFoundError) throw new UsageError(error.message);
    throw error;
  }
  const meta = store.metadata();
  const interrupted = store.interrupted;
  if (meta.status === "running" && !interrupted) throw new UsageError(`Task ${meta.id} is still running (process ${meta.pid}); wait for it or stop it first.`);
  const mode = args.mode ?? meta.mode;
  const config = resolveRunConfig(
    {
      ...args,
      cwd: meta.workspace,
      provider: args.provider ?? (meta.provider as RunArgs["provider"]),
      model: args.model ?? meta.model,
      protocol: args.protocol ?? meta.protocol,
    },
    io.env,
  );
  if (interrupted) {
    const stopped = await stopLeftoverCommands(meta.id);
    if (stopped > 0) io.stderr(`cairn: stopped ${stopped} command${stopped === 1 ? "" : "s"} still running from the interrupted run.\n`);
  }
  const { messages, pending, warnings } = store.loadConversation();
  for (const warning of warnings) io.stderr(`cairn: ${warning}\n`);
  const checkpoints = await openCheckpoints(config, io);
  const mcp = openMcp(config, io);
  const options = taskOptionsFrom(config, args, mode, store, io);
  const task = new Task({
    ...options,
    tools: { ...options.tools, ...(mcp ? { mcp } : {}) },
    workspace: { ...options.workspace, ...(checkpoints ? { checkpoints } : {}) },
    journal: { sessionId: meta.id, store, messages, pendingResults: pending, prior: { turns: meta.turns, usage: fromUsageJson(meta.usage), costUsd: meta.totalCostUsd } },
    host,
  });
  const events = store.loadEvents();
  const last = [...events].reverse().find((e): e is Extract<AgentEvent, { type: "result" }> => e.type === "result");
  const resumed: ResumedState = { meta, interrupted, events };
  if (meta.status === "needs_input" && last?.question) resumed.question = last.question;
  if (meta.status === "needs_input" && last?.plan) resumed.plan = last.plan;
  return { task, store, config, checkpoints, mcp, resumed };
}

/** The message that carries a reopened task on, worded for how it was left. */
export function resumeMessage(resumed: ResumedState, mode: "act" | "plan", message: string | undefined): string {
  return resumeText({
    status: resumed.meta.status,
    interrupted: resumed.interrupted,
    planApproved: resumed.meta.mode === "plan" && mode === "act" && resumed.meta.status === "needs_input",
    message,
  });
}

/** The same task with another model (between runs): conversation, totals and journal carry over. */
export function withModel(opened: OpenedTask, args: RunArgs, model: string, io: Io, host: Host): OpenedTask {
  const config = resolveRunConfig({ ...args, cwd: opened.config.cwd, model, provider: opened.config.model.provider }, io.env);
  const snapshot = opened.task.snapshot();
  const options = taskOptionsFrom(config, args, snapshot.mode, opened.store, io);
  const task = new Task({
    ...options,
    tools: { ...options.tools, ...(opened.mcp ? { mcp: opened.mcp } : {}) },
    workspace: { ...options.workspace, ...(opened.checkpoints ? { checkpoints: opened.checkpoints } : {}) },
    journal: { sessionId: opened.task.sessionId, store: opened.store, messages: snapshot.messages, prior: { turns: snapshot.turns, usage: snapshot.usage, costUsd: snapshot.costUsd } },
    host,
  });
  opened.store.update({ model: config.model.id });
  return { ...opened, task, config };
}

/** Ends what an opened task holds beyond the task itself (MCP server connections). */
export async function closeTask(opened: Pick<OpenedTask, "mcp">): Promise<void> {
  await opened.mcp?.close();
}
