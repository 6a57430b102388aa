import { resolveSettings, type ApprovalCategory, type CommandPermissions, type Model, type ProtocolName, type ResolvedSettings, type RetryPolicy, type TaskSandbox } from "@cairn/core";
import { overridesOf, type RunArgs } from "./run-args.js";

/**
 * The old flat view of a resolved session, for the hosts that still assemble a Task themselves
 * (acp/open-acp-task.ts) until they open tasks with core's openSession. The choices are core's
 * (resolveSettings); nothing is decided here. Delete with its last importer.
 */
export type RunConfig = {
  cwd: string;
  home: string;
  model: Model;
  fallbackModel?: Model;
  protocol: ProtocolName;
  autoApprove: ApprovalCategory[];
  maxTurns?: number;
  maxMistakes?: number;
  maxBudgetUsd?: number;
  compaction: ResolvedSettings["compaction"];
  compactionModel?: Model;
  problemsCommand?: string;
  browser?: { viewport?: { width: number; height: number }; chromiumPath?: string };
  checkpoints: boolean;
  checkpointsLazyAboveFiles?: number;
  commandPermissions?: CommandPermissions;
  approvalRequiredCommands?: string[];
  retry: Partial<RetryPolicy>;
  sandbox: TaskSandbox;
  sandboxNotice?: string;
  /** Everything resolved, as core's session has it. */
  resolved: ResolvedSettings;
};

export function resolveRunConfig(args: RunArgs, env: Record<string, string | undefined>): RunConfig {
  const notices: string[] = [];
  const resolved = resolveSettings({ cwd: args.cwd, env, overrides: overridesOf(args) }, notices);
  const s = resolved.settings;
  return {
    resolved,
    cwd: resolved.cwd,
    home: resolved.home,
    model: resolved.model,
    protocol: resolved.protocol,
    autoApprove: resolved.autoApprove,
    compaction: resolved.compaction,
    checkpoints: resolved.checkpoints,
    retry: resolved.retry,
    sandbox: resolved.sandbox,
    ...(notices.length > 0 ? { sandboxNotice: notices.join("\n") } : {}),
    ...(resolved.fallbackModel ? { fallbackModel: resolved.fallbackModel } : {}),
    ...(resolved.compactionModel ? { compactionModel: resolved.compactionModel } : {}),
    ...(resolved.commandPermissions ? { commandPermissions: resolved.commandPermissions } : {}),
    ...(s.maxTurns !== undefined ? { maxTurns: s.maxTurns } : {}),
    ...(s.maxMistakes !== undefined ? { maxMistakes: s.maxMistakes } : {}),
    ...(s.maxBudgetUsd !== undefined ? { maxBudgetUsd: s.maxBudgetUsd } : {}),
    ...(s.problemsCommand ? { problemsCommand: s.problemsCommand } : {}),
    ...(s.browser ? { browser: s.browser } : {}),
    ...(s.checkpointsLazyAboveFiles !== undefined ? { checkpointsLazyAboveFiles: s.checkpointsLazyAboveFiles } : {}),
    ...(s.approvalRequiredCommands ? { approvalRequiredCommands: s.approvalRequiredCommands } : {}),
  };
}
