import path from "node:path";
import { allTools, Checkpoints, loadHooks, McpConfigError, McpHub, untrustedNotice, type TaskOptions } from "@cairn/core";
import { UsageError } from "./usage-error.js";
import type { Io } from "./headless.js";
import type { RunConfig } from "./config.js";
import type { RunArgs } from "./run-args.js";

/** The Task options every command derives from its resolved configuration and flags. */
export function taskOptionsFrom(config: RunConfig, args: RunArgs, mode: "act" | "plan", store: { dir: string }, io: Io): TaskOptions {
  const scratchDir = path.join(store.dir, "scratch");
  if (config.sandboxNotice) io.stderr(`cairn: ${config.sandboxNotice}\n`);
  const hooks = loadHooks({ home: config.home, cwd: config.cwd });
  for (const warning of hooks.warnings) io.stderr(`cairn: ${warning}\n`);
  for (const untrusted of hooks.untrusted) io.stderr(`cairn: ${untrustedNotice(untrusted)}\n`);
  return {
    model: {
      main: config.model,
      ...(config.fallbackModel ? { fallback: config.fallbackModel } : {}),
      ...(config.compactionModel ? { compaction: config.compactionModel } : {}),
      protocol: config.protocol,
      retry: config.retry,
    },
    tools: {
      list: allTools,
      scratchDir,
      mentions: true,
      ...(config.problemsCommand ? { problemsCommand: config.problemsCommand } : {}),
      ...(config.browser ? { browser: config.browser } : {}),
    },
    workspace: { cwd: config.cwd, home: config.home, sandbox: config.sandbox },
    policy: {
      mode,
      yolo: args.yolo,
      autoApprove: config.autoApprove,
      ...(config.commandPermissions ? { commandPermissions: config.commandPermissions } : {}),
      ...(config.approvalRequiredCommands ? { approvalRequiredCommands: config.approvalRequiredCommands } : {}),
    },
    limits: {
      compaction: config.compaction,
      ...(config.maxTurns !== undefined ? { maxTurns: config.maxTurns } : {}),
      ...(config.maxMistakes !== undefined ? { maxMistakes: config.maxMistakes } : {}),
      ...(config.maxBudgetUsd !== undefined ? { maxBudgetUsd: config.maxBudgetUsd } : {}),
    },
    hooks: { ...(hooks.hooks ? { runner: hooks.hooks } : {}), transcriptPath: path.join(store.dir, "conversation.jsonl") },
  };
}

/** The workspace's checkpoints, or none (with a warning) when they cannot work here: the task still runs. */
export async function openCheckpoints(config: RunConfig, io: Io): Promise<Checkpoints | undefined> {
  if (!config.checkpoints) return undefined;
  try {
    return await Checkpoints.open({
      workspace: config.cwd,
      baseDir: path.join(config.home, "checkpoints"),
      ...(config.checkpointsLazyAboveFiles !== undefined ? { lazyAboveFiles: config.checkpointsLazyAboveFiles } : {}),
    });
  } catch (error) {
    io.stderr(`cairn: checkpoints are off for this task: ${(error as Error).message.split("\n")[0]}\n`);
    return undefined;
  }
}

/** The MCP servers configured for this workspace (nothing starts until a tool needs it). */
export function openMcp(config: RunConfig, io: Io): McpHub | undefined {
  let hub: McpHub;
  try {
    hub = McpHub.load({ home: config.home, cwd: config.cwd, env: io.env, ...(config.sandbox.sandbox ? { sandbox: config.sandbox.sandbox } : {}) });
  } catch (error) {
    if (error instanceof McpConfigError) throw new UsageError(error.message);
    throw error;
  }
  for (const problem of hub.problems) io.stderr(`cairn: ${problem}\n`);
  const untrusted = hub.untrusted();
  if (untrusted) io.stderr(`cairn: ${untrustedNotice(untrusted)}\n`);
  return hub.servers().length > 0 ? hub : undefined;
}
