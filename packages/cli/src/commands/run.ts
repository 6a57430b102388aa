import { allTools, Task, TaskStore } from "@cairn/core";
import { resolveRunConfig } from "../config.js";
import { driveHeadless, type Io } from "../headless.js";
import type { RunArgs } from "../run-args.js";

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
  const task = new Task({
    sessionId: store.id,
    journal: store,
    model: config.model,
    ...(config.fallbackModel ? { fallbackModel: config.fallbackModel } : {}),
    tools: allTools,
    cwd: config.cwd,
    protocol: config.protocol,
    mode: args.mode ?? "act",
    yolo: args.yolo,
    autoApprove: config.autoApprove,
    retry: config.retry,
    scratchDir: `${store.dir}/scratch`,
    ...(config.maxTurns !== undefined ? { maxTurns: config.maxTurns } : {}),
    ...(config.maxMistakes !== undefined ? { maxMistakes: config.maxMistakes } : {}),
  });
  return driveHeadless(task, task.run(args.task), args.json, io);
}
