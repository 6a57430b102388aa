import {
  apiKeyFromEnv,
  catalogModelIds,
  discoverModels,
  listedModels,
  loadWorkspaceSettings,
  mergeSettings,
  officialApiUrls,
  providerIds,
  providers,
  resolveSettingsDiscovering,
  SessionError,
  settingsFromEnv,
  type ProviderId,
  type SessionOverrides,
} from "@cairn/core";
import { cairnHome, loadSettings, SettingsError, type Settings } from "@cairn/core/storage";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";

/** A model the person picked for a new task in the page. */
export type ModelChoice = { provider: ProviderId; model: string };

export type ProviderOption = {
  id: ProviderId;
  models: string[];
  /** Where the key is read from, in order; empty when the provider needs none. */
  key_env: string[];
  has_key: boolean;
};

/** `settings_error`: settings.json cannot be read now, in one line; `default` is then the built-in one, which the page must not switch to unasked. */
export type ModelCatalog = { default: ModelChoice; providers: ProviderOption[]; settings_error?: string };

export type ModelCheck = { ok: true; provider: string; model: string; supports_images: boolean } | { ok: false; message: string };

/** The provider and model a new task gets when the person picks none: the same layers a session resolves (flags > env > workspace > user). */
function configuredModel(args: RunArgs, env: NodeJS.ProcessEnv): ModelChoice & { baseUrl?: string; error?: string } {
  let settings: Settings = {};
  let error: string | undefined;
  try {
    const home = cairnHome(env);
    settings = mergeSettings(loadSettings(home), loadWorkspaceSettings(home, args.cwd).settings, settingsFromEnv(env), overridesOf(args));
  } catch (thrown) {
    // A broken settings file: the picker says so and keeps the person's last choice, not the built-in default.
    if (!(thrown instanceof SettingsError || thrown instanceof SessionError)) throw thrown;
    error = thrown.message.split("\n")[0];
    // The flags and the environment still say what they say (when they can be read).
    try {
      settings = mergeSettings(settingsFromEnv(env), overridesOf(args));
    } catch {
      settings = {};
    }
  }
  const provider = settings.provider ?? "anthropic";
  const baseUrl = settings.baseUrl ?? providers[provider].baseUrl;
  return { provider, model: settings.model ?? providers[provider].defaultModel ?? "", ...(baseUrl ? { baseUrl } : {}), ...(error ? { error } : {}) };
}

/**
 * What the page may offer: each provider with the models the catalog knows for it, the configured
 * one first, with the models its endpoint has when it is Ollama or LM Studio (asked once an hour).
 */
export async function modelCatalog(args: RunArgs, env: NodeJS.ProcessEnv): Promise<ModelCatalog> {
  const { error, baseUrl, ...configured } = configuredModel(args, env);
  const endpoint = { home: cairnHome(env), provider: configured.provider, baseUrl };
  await discoverModels(endpoint, [], { list: true });
  const listed = listedModels(endpoint);
  const offered = providerIds.flatMap((id): ProviderOption[] => {
    if (id !== configured.provider && endpointOf(id) === undefined) return [];
    const models = [
      ...(id === configured.provider && configured.model ? [configured.model] : []),
      ...(id === configured.provider ? listed : []),
      ...(providers[id].defaultModel ? [providers[id].defaultModel] : []),
      ...catalogModelIds(id),
    ];
    if (models.length === 0) return [];
    const keyEnv = providers[id].keyEnv.length > 0 ? [...providers[id].keyEnv, "CAIRN_API_KEY"] : [];
    return [{ id, models: [...new Set(models)], key_env: keyEnv, has_key: !providers[id].keyRequired || apiKeyFromEnv(id, env) !== undefined }];
  });
  offered.sort((a, b) => Number(b.id === configured.provider) - Number(a.id === configured.provider));
  return { default: configured, providers: offered, ...(error ? { settings_error: error } : {}) };
}

/** A provider's own API root, for a provider other than the configured one. */
function endpointOf(provider: ProviderId): string | undefined {
  return providers[provider].baseUrl ?? officialApiUrls[provider];
}

/**
 * The session overrides for a picked model. The configured base URL (--base-url, CAIRN_BASE_URL,
 * settings.json) belongs to the configured provider: another provider goes to its own API, so its
 * key is never sent to the first one's endpoint.
 */
export function choiceOverrides(choice: ModelChoice, args: RunArgs, env: NodeJS.ProcessEnv): { ok: true; overrides: SessionOverrides } | { ok: false; message: string } {
  const same = choice.provider === configuredModel(args, env).provider;
  const endpoint = same ? undefined : endpointOf(choice.provider);
  if (!same && endpoint === undefined) {
    return { ok: false, message: `${choice.provider} needs a base URL of its own: start cairn web with --provider ${choice.provider} --base-url <url>.` };
  }
  return { ok: true, overrides: { provider: choice.provider, model: choice.model, ...(endpoint ? { baseUrl: endpoint } : {}) } };
}

/**
 * Whether a task could start on this model now (a key, a base URL), as the session would decide it,
 * and whether it takes images (asking its endpoint, as the session would: see resolveSettingsDiscovering).
 */
export async function checkModel(choice: ModelChoice | undefined, args: RunArgs, env: NodeJS.ProcessEnv): Promise<ModelCheck> {
  const picked = choice ? choiceOverrides(choice, args, env) : { ok: true as const, overrides: {} };
  if (!picked.ok) return picked;
  try {
    const { model } = await resolveSettingsDiscovering({ cwd: args.cwd, env, overrides: { ...overridesOf(args), ...picked.overrides } });
    return { ok: true, provider: model.provider, model: model.id, supports_images: model.info.supportsImages };
  } catch (error) {
    if (error instanceof SessionError) return { ok: false, message: error.message };
    throw error;
  }
}
