import { allTools, Task, type AgentEvent, type TaskResult } from "@cairn/core";
import { resolveRunConfig } from "./config.js";
import { ProgressRenderer } from "./progress-renderer.js";
import type { RunArgs } from "./run-args.js";

export type Io = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
};

export const exitCodes = { completed: 0, failed: 1, usage: 2, needsInput: 3 } as const;

export function exitCodeFor(result: TaskResult): number {
  if (result.subtype === "success") return exitCodes.completed;
  if (result.subtype === "needs_input") return exitCodes.needsInput;
  return exitCodes.failed;
}

/**
 * `cairn run`: one task, no person. Calls that need approval and are not auto-approved are
 * denied (the model is told); a question ends the run with exit code 3.
 */
export async function runHeadless(args: RunArgs, io: Io): Promise<number> {
  const config = resolveRunConfig(args, io.env);
  const task = new Task({
    model: config.model,
    ...(config.fallbackModel ? { fallbackModel: config.fallbackModel } : {}),
    tools: allTools,
    cwd: config.cwd,
    protocol: config.protocol,
    mode: args.mode,
    yolo: args.yolo,
    autoApprove: config.autoApprove,
    retry: config.retry,
    ...(config.maxTurns !== undefined ? { maxTurns: config.maxTurns } : {}),
    ...(config.maxMistakes !== undefined ? { maxMistakes: config.maxMistakes } : {}),
  });

  const renderer = new ProgressRenderer(io.stderr);
  const emit = args.json ? (event: AgentEvent) => io.stdout(`${JSON.stringify(event)}\n`) : (event: AgentEvent) => renderer.render(event);

  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    io.stderr("\nStopping… (press Ctrl-C again to quit at once)\n");
    task.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const run = task.run(args.task);
    let next = await run.next();
    while (!next.done) {
      emit(next.value);
      next = await run.next();
    }
    const result = next.value;
    if (!args.json) {
      if (result.subtype === "success") {
        io.stdout(`${result.result}\n`);
        if (result.command) io.stderr(`Suggested command to see the result: ${result.command}\n`);
      } else if (result.subtype === "needs_input") {
        const options = result.question?.options ?? [];
        io.stdout(`${result.result}\n${options.map((o) => `- ${o}\n`).join("")}`);
      }
    }
    return exitCodeFor(result);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
