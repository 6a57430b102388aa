import { statSync } from "node:fs";
import path from "node:path";
import { factsFromSettings, layeredModelInfo } from "../model/capabilities.js";
import { discoveredFacts, discoverModels, type DiscoveryTarget } from "../model/discover.js";
import { ModelConfigError, apiKeyFromEnv, createModel, providers } from "../model/providers.js";
import type { RetryPolicy } from "../model/retry.js";
import type { Model, ProviderId } from "../model/types.js";
import type { ApprovalCategory } from "../policy/approval-category.js";
import type { CommandPermissions } from "../policy/command/rules.js";
import type { Mode } from "../policy/mode.js";
import type { ProtocolName } from "../protocol/types.js";
import type { TaskSandbox } from "../sandbox/command-sandbox.js";
import { openSandbox } from "../sandbox/open-sandbox.js";
import { sandboxRequest } from "../sandbox/sandbox-settings.js";
import { cairnHome } from "../storage/cairn-home.js";
import { loadSettings, SettingsError, type Settings } from "../storage/settings.js";
import { mergeSettings, settingsFromEnv, type Env, type SessionOverrides } from "./overrides.js";
import { SessionError } from "./session-error.js";
import { loadWorkspaceSettings } from "./workspace-settings.js";

/** Every choice of a session made: the layers merged, the models created, the sandbox opened. */
export type ResolvedSettings = {
  cwd: string;
  home: string;
  /** The layers merged (flags > env > trusted workspace > user), as settings.json spells them. */
  settings: Settings;
  model: Model;
  fallbackModel?: Model;
  compactionModel?: Model;
  protocol: ProtocolName;
  mode: Mode;
  yolo: boolean;
  autoApprove: ApprovalCategory[];
  compaction: "auto" | "truncate" | "off";
  checkpoints: boolean;
  retry: Partial<RetryPolicy>;
  /** The OS sandbox, opened (bubblewrap probed). */
  sandbox: TaskSandbox;
  commandPermissions?: CommandPermissions;
};

const localProviders: ReadonlySet<ProviderId> = new Set(["ollama", "lmstudio"]);

/**
 * The session's settings: overrides (the host's flags) > the environment > the workspace's
 * .cairn/settings.json (only when trusted) > CAIRN_HOME/settings.json > defaults. Notices (an
 * untrusted workspace file, a sandbox that cannot start) are added to `notices`.
 */
export function resolveSettings(
  options: {
    cwd: string;
    home?: string;
    env?: Env;
    overrides?: SessionOverrides;
    modelFetch?: typeof globalThis.fetch;
    /** false: the endpoint is not asked what its models take (cairn replay asks nothing of the network). */
    discover?: boolean;
  },
  notices: string[] = []): ResolvedSettings {
  const env = options.env ?? process.env;
  const home = options.home ?? cairnHome(env);
  const cwd = workspace(options.cwd);
  let user: Settings;
  try {
    user = loadSettings(home);
  } catch (error) {
    if (error instanceof SettingsError) throw new SessionError(error.message);
    throw error;
  }
  const fromWorkspace = loadWorkspaceSettings(home, cwd);
  if (fromWorkspace.notice) notices.push(fromWorkspace.notice);
  const { mode, yolo, ...overrides } = options.overrides ?? {};
  const settings = mergeSettings(user, fromWorkspace.settings, settingsFromEnv(env), overrides);

  const provider: ProviderId = settings.provider ?? "anthropic";
  const modelId = settings.model ?? providers[provider].defaultModel;
  if (!modelId) throw new SessionError(`Provider ${provider} has no default model: pass --model or set CAIRN_MODEL.`);
  const apiKey = apiKeyFromEnv(provider, env);
  const endpoint: DiscoveryTarget = { home, provider, baseUrl: settings.baseUrl ?? providers[provider].baseUrl };
  const reasoning = { ...(settings.thinking !== undefined ? { thinkingTokens: settings.thinking } : {}), ...(settings.effort ? { effort: settings.effort } : {}) };
  /** `thinks`: the model answering the task (not the one writing summaries) reasons as asked. */
  const make = (id: string, thinks = true): Model => {
    try {
      return createModel({
        ...(thinks && Object.keys(reasoning).length > 0 ? { reasoning } : {}),
        provider,
        model: id,
        ...(apiKey ? { apiKey } : {}),
        ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
        info: layeredModelInfo(id, provider, { discovered: discoveredFacts(endpoint, id), settings: factsFromSettings(settings.models?.[id]) }).info,
        ...(settings.requestTimeout !== undefined ? { requestTimeoutSeconds: settings.requestTimeout } : {}),
        ...(options.modelFetch ? { fetch: options.modelFetch } : {}),
      });
    } catch (error) {
      if (error instanceof ModelConfigError) throw new SessionError(error.message);
      throw error;
    }
  };
  // The mode of the sandbox was checked when it was read (flag, CAIRN_SANDBOX, settings.json).
  const request = sandboxRequest(undefined, undefined, settings.sandbox);
  if (!request.ok) throw new SessionError(request.error);
  const sandbox = openSandbox(request.request, { workspace: cwd, cairnHome: home, env });
  if (!sandbox.ok) throw new SessionError(sandbox.error);
  if (sandbox.notice) notices.push(sandbox.notice);

  const model = make(modelId);
  // What the model is said to handle (settings, then its endpoint) beats the provider's default.
  const nativeTools = model.info.nativeTools ?? !localProviders.has(provider);
  const resolved: ResolvedSettings = {
    cwd,
    home,
    settings,
    model,
    protocol: settings.protocol ?? (nativeTools ? "native" : "xml"),
    mode: mode ?? "act",
    yolo: yolo === true,
    autoApprove: settings.autoApprove ?? ["read"],
    compaction: settings.compaction ?? "auto",
    checkpoints: settings.checkpoints ?? true,
    retry: { ...settings.retry },
    sandbox: { sandbox: sandbox.sandbox, summary: sandbox.summary },
  };
  if (settings.fallbackModel) resolved.fallbackModel = make(settings.fallbackModel);
  if (settings.compactionModel) resolved.compactionModel = make(settings.compactionModel, false);
  if (settings.commandPermissions) resolved.commandPermissions = settings.commandPermissions;
  return resolved;
}

/**
 * resolveSettings, once the endpoint has said what its models take (images, context window, tools:
 * model/discover.ts) where it can and has not within the hour. Waits a few seconds at most; an
 * endpoint that cannot tell leaves the settings and the built-in list to decide.
 */
export async function resolveSettingsDiscovering(options: Parameters<typeof resolveSettings>[0], notices: string[] = []): Promise<ResolvedSettings> {
  const first = resolveSettings(options, notices);
  if (options.discover === false) return first;
  const provider = first.model.provider;
  const ids = [first.model.id, first.fallbackModel?.id, first.compactionModel?.id].filter((id): id is string => id !== undefined);
  const found = await discoverModels({ home: first.home, provider, baseUrl: first.settings.baseUrl ?? providers[provider].baseUrl }, ids);
  if (found.notice) notices.push(found.notice);
  // Made again with what was learned; its notices were said the first time.
  return found.learned ? resolveSettings(options) : first;
}

function workspace(dir: string): string {
  const resolved = path.resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(resolved).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw new SessionError(`The workspace ${resolved} is not a directory: pass an existing folder with --cwd.`);
  return resolved;
}
