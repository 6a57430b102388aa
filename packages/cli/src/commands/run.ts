import { Task, TaskStore } from "@cairn/core";
import { resolveRunConfig } from "../config.js";
import { driveHeadless, type Io } from "../headless.js";
import type { RunArgs } from "../run-args.js";
import { openCheckpoints, openMcp, taskOptionsFrom } from "../task-options.js";

/**
 * `cairn run`: one task, no person. Calls that need approval and are not auto-approved are
 * denied (the model is told); a question ends the run with exit code 3. The task is stored as it
 * runs, so `cairn resume` can carry it on.
 */
export async function runCommand(args: RunArgs, io: Io): Promise<number> {
  const config = resolveRunConfig(args, io.env);
  const store = TaskStore.create(config.home, {
    task: args.task,
    workspace: config.cwd,
    provider: config.model.provider,
    model: config.model.id,
    protocol: config.protocol,
    mode: args.mode ?? "act",
  });
  const checkpoints = await openCheckpoints(config, io);
  const mcp = openMcp(config, io);
  const task = new Task({
    ...(mcp ? { mcp } : {}),
    ...taskOptionsFrom(config, args, args.mode ?? "act", store, io),
    sessionId: store.id,
    journal: store,
    ...(checkpoints ? { checkpoints } : {}),
  });
  try {
    return (await driveHeadless(task, task.run(args.task), args.json, io)).code;
  } finally {
    await mcp?.close();
  }
}
