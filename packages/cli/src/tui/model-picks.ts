import {
  catalogModelIds,
  discoveredFacts,
  discoverModels,
  factsFromSettings,
  layeredModelInfo,
  listedModels,
  loadSettings,
  loadWorkspaceSettings,
  mergeSettings,
  providers,
  SessionError,
  SettingsError,
  settingsFromEnv,
  type Env,
  type ProviderId,
  type SessionOverrides,
  type Settings,
} from "@cairn/core";

export type ModelPick = { label: string; value: string; hint: string };

/**
 * The models /model offers on the session's provider: the current one first, then those under
 * "models" in settings.json, those the endpoint has (Ollama's pulled models, LM Studio's
 * downloaded ones, asked once an hour), the provider's default and the built-in list's, each
 * described as cairn models describes it (settings over what the endpoint said over the built-in list).
 */
export async function modelPicks(o: { home: string; cwd: string; env: Env; overrides: SessionOverrides; provider: ProviderId; current: string }): Promise<ModelPick[]> {
  let settings: Settings = {};
  try {
    settings = mergeSettings(loadSettings(o.home), loadWorkspaceSettings(o.home, o.cwd).settings, settingsFromEnv(o.env), o.overrides);
  } catch (error) {
    // A broken settings.json: the built-in list is still worth offering (the task reports the error).
    if (!(error instanceof SettingsError || error instanceof SessionError)) throw error;
  }
  const target = { home: o.home, provider: o.provider, baseUrl: settings.baseUrl ?? providers[o.provider].baseUrl };
  const defaultModel = providers[o.provider].defaultModel;
  // An endpoint that does not answer leaves the list as settings and the built-in list make it.
  await discoverModels(target, [], { list: true });
  const listed = listedModels(target);
  await discoverModels(target, listed);
  const ids = [...new Set([o.current, ...Object.keys(settings.models ?? {}), ...listed, ...(defaultModel ? [defaultModel] : []), ...catalogModelIds(o.provider)].filter(Boolean))];
  return ids.map((id) => {
    const { info } = layeredModelInfo(id, o.provider, { discovered: discoveredFacts(target, id), settings: factsFromSettings(settings.models?.[id]) });
    const window = `${Math.round(info.contextWindow / 1000)}k context`;
    return { label: id, value: id, hint: [id === o.current ? "current" : "", window, info.supportsImages ? "images" : "no images"].filter(Boolean).join(" · ") };
  });
}
