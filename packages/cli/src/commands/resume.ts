import { cairnHome, resumeText, stopLeftoverCommands, Task, TaskNotFoundError, TaskStore, type Usage } from "@cairn/core";
import { resolveRunConfig } from "../config.js";
import { driveHeadless, type Io } from "../headless.js";
import { runCommand } from "./run.js";
import type { RunArgs } from "../run-args.js";
import { openCheckpoints, openMcp, taskOptionsFrom } from "../task-options.js";
import { UsageError } from "../usage-error.js";

function fromUsageJson(u: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }): Usage {
  return { inputTokens: u.input_tokens, outputTokens: u.output_tokens, cacheReadTokens: u.cache_read_input_tokens, cacheWriteTokens: u.cache_creation_input_tokens };
}

/**
 * `cairn resume <id> [message]`: carries a stored task on. An interrupted call is reported to the
 * model as interrupted, a pending question is answered by the message, and a plan awaiting
 * approval goes ahead with --mode act.
 */
export async function resumeCommand(args: RunArgs, io: Io): Promise<number> {
  const [id, ...words] = args.task.split(" ");
  if (!id) throw new UsageError('Which task? cairn resume <id> ["message"] (see cairn history).');
  const message = words.join(" ").trim() || undefined;
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
  store.claim();

  const checkpoints = await openCheckpoints(config, io);
  const mcp = openMcp(config, io);
  const task = new Task({
    ...(mcp ? { mcp } : {}),
    ...taskOptionsFrom(config, args, mode, store, io),
    ...(checkpoints ? { checkpoints } : {}),
    sessionId: meta.id,
    journal: store,
    messages,
    pendingResults: pending,
    prior: { turns: meta.turns, usage: fromUsageJson(meta.usage), costUsd: meta.totalCostUsd },
  });
  // A slash command (/compact, /newtask, a workflow) goes to the task as it is.
  const text = message?.startsWith("/") ? message : resumeText({
    status: meta.status,
    interrupted,
    planApproved: meta.mode === "plan" && mode === "act" && meta.status === "needs_input",
    message,
  });
  const { code, result } = await driveHeadless(task, task.continue(text), args.json, io).finally(() => mcp?.close());
  // /newtask: the essentials go to a fresh task in the same workspace, which runs now.
  if (result.new_task) return runCommand({ ...args, cwd: meta.workspace, mode, task: result.new_task }, io);
  return code;
}
