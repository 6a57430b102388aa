import { statSync } from "node:fs";
import path from "node:path";
import {
  apiKeyFromEnv,
  cairnHome,
  createModel,
  isProviderId,
  loadSettings,
  ModelConfigError,
  providerIds,
  providers,
  SettingsError,
  parseCommandPermissions,
  openSandbox,
  sandboxRequest,
  type ApprovalCategory,
  type CommandPermissions,
  type Model,
  type ProviderId,
  type RetryPolicy,
  type Settings,
  type TaskSandbox,
} from "@cairn/core";
import type { RunArgs } from "./run-args.js";
import { UsageError } from "./usage-error.js";

export type RunConfig = {
  cwd: string;
  home: string;
  model: Model;
  fallbackModel?: Model;
  protocol: "xml" | "native";
  autoApprove: ApprovalCategory[];
  maxTurns?: number;
  maxMistakes?: number;
  maxBudgetUsd?: number;
  compaction: "auto" | "truncate" | "off";
  compactionModel?: Model;
  problemsCommand?: string;
  browser?: { viewport?: { width: number; height: number }; chromiumPath?: string };
  /** Checkpoint the workspace after every step (settings.json "checkpoints": false turns it off). */
  checkpoints: boolean;
  /** settings.json "checkpointsLazyAboveFiles": above this many files the first checkpoint waits for the first change. */
  checkpointsLazyAboveFiles?: number;
  commandPermissions?: CommandPermissions;
  approvalRequiredCommands?: string[];
  retry: Partial<RetryPolicy>;
  /** The OS sandbox (--sandbox > CAIRN_SANDBOX > settings.json "sandbox" > workspace-write), opened: bubblewrap probed. */
  sandbox: TaskSandbox;
  /** Said once per process when the sandbox is wanted but cannot start (commands then run without it). */
  sandboxNotice?: string;
};

type Env = Record<string, string | undefined>;

function workspace(dir: string): string {
  const resolved = path.resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(resolved).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw new UsageError(`The workspace ${resolved} is not a directory: pass an existing folder with --cwd.`);
  return resolved;
}

const localProviders: ReadonlySet<ProviderId> = new Set(["ollama", "lmstudio"]);

/** Flags beat the environment, which beats CAIRN_HOME/settings.json, which beats defaults. */
export function resolveRunConfig(args: RunArgs, env: Env): RunConfig {
  const home = cairnHome(env);
  let settings: Settings;
  try {
    settings = loadSettings(home);
  } catch (error) {
    if (error instanceof SettingsError) throw new UsageError(error.message);
    throw error;
  }
  const providerName = args.provider ?? env.CAIRN_PROVIDER?.trim() ?? settings.provider ?? "anthropic";
  if (!isProviderId(providerName)) {
    throw new UsageError(`Unknown provider "${providerName}" (from CAIRN_PROVIDER or settings.json). Use one of: ${providerIds.join(", ")}.`);
  }
  const provider: ProviderId = providerName;
  const modelId = args.model ?? env.CAIRN_MODEL?.trim() ?? settings.model ?? providers[provider].defaultModel;
  if (!modelId) throw new UsageError(`Provider ${provider} has no default model: pass --model or set CAIRN_MODEL.`);
  const baseUrl = args.baseUrl ?? env.CAIRN_BASE_URL?.trim() ?? settings.baseUrl;
  const apiKey = apiKeyFromEnv(provider, env);
  const requestTimeout = args.requestTimeout ?? settings.requestTimeout;

  const make = (id: string): Model => {
    try {
      return createModel({
        provider,
        model: id,
        ...(apiKey ? { apiKey } : {}),
        ...(baseUrl ? { baseUrl } : {}),
        ...(settings.models?.[id] ? { info: settings.models[id] } : {}),
        ...(requestTimeout !== undefined ? { requestTimeoutSeconds: requestTimeout } : {}),
      });
    } catch (error) {
      if (error instanceof ModelConfigError) throw new UsageError(error.message);
      throw error;
    }
  };

  const fallbackId = args.fallbackModel ?? settings.fallbackModel;
  const retry: Partial<RetryPolicy> = { ...settings.retry };
  if (args.retries !== undefined) retry.maxRetries = args.retries;
  const cwd = workspace(args.cwd);
  const request = sandboxRequest(args.sandbox, env.CAIRN_SANDBOX, settings.sandbox);
  if (!request.ok) throw new UsageError(request.error);
  const sandbox = openSandbox(request.request, { workspace: cwd, cairnHome: home, env });
  if (!sandbox.ok) throw new UsageError(sandbox.error);
  const config: RunConfig = {
    sandbox: { sandbox: sandbox.sandbox, summary: sandbox.summary },
    ...(sandbox.notice ? { sandboxNotice: sandbox.notice } : {}),
    cwd,
    home,
    model: make(modelId),
    protocol: args.protocol ?? settings.protocol ?? (localProviders.has(provider) ? "xml" : "native"),
    autoApprove: args.autoApprove ?? settings.autoApprove ?? ["read"],
    compaction: args.compaction ?? settings.compaction ?? "auto",
    checkpoints: settings.checkpoints ?? true,
    retry,
  };
  if (settings.compactionModel) config.compactionModel = make(settings.compactionModel);
  if (settings.problemsCommand) config.problemsCommand = settings.problemsCommand;
  if (settings.checkpointsLazyAboveFiles !== undefined) config.checkpointsLazyAboveFiles = settings.checkpointsLazyAboveFiles;
  if (settings.browser) config.browser = settings.browser;
  if (settings.approvalRequiredCommands) config.approvalRequiredCommands = settings.approvalRequiredCommands;
  const fromEnv = env.CAIRN_COMMAND_PERMISSIONS?.trim();
  if (fromEnv) {
    const parsed = parseCommandPermissions(fromEnv);
    if (!parsed.ok) throw new UsageError(`${parsed.error} Fix CAIRN_COMMAND_PERMISSIONS or unset it.`);
    config.commandPermissions = parsed.permissions;
  } else if (settings.commandPermissions) {
    config.commandPermissions = settings.commandPermissions;
  }
  const maxBudgetUsd = args.maxBudgetUsd ?? settings.maxBudgetUsd;
  if (maxBudgetUsd !== undefined) config.maxBudgetUsd = maxBudgetUsd;
  if (fallbackId) config.fallbackModel = make(fallbackId);
  const maxTurns = args.maxTurns ?? settings.maxTurns;
  if (maxTurns !== undefined) config.maxTurns = maxTurns;
  if (settings.maxMistakes !== undefined) config.maxMistakes = settings.maxMistakes;
  return config;
}
