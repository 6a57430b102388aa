import type { ModelFacts } from "./capabilities.js";
import { fetchJson, isRecord, rootOf, tokens } from "./discover-fetch.js";

/**
 * What Ollama says of one model (`POST /api/show {"model"}`): its capabilities ("completion",
 * "vision", "tools", "thinking") and its context length, from the `num_ctx` the model is served
 * with when its parameters set one, else the length it was trained for (model_info's
 * "<architecture>.context_length").
 */
export function ollamaFacts(show: unknown): ModelFacts | undefined {
  if (!isRecord(show)) return undefined;
  const facts: ModelFacts = {};
  const info = isRecord(show.model_info) ? show.model_info : {};
  const architecture = info["general.architecture"];
  const served = typeof show.parameters === "string" ? /^\s*num_ctx\s+(\d+)\s*$/m.exec(show.parameters)?.[1] : undefined;
  const window = tokens(served === undefined ? undefined : Number(served)) ?? (typeof architecture === "string" ? tokens(info[`${architecture}.context_length`]) : undefined);
  if (window) facts.contextWindow = window;
  if (Array.isArray(show.capabilities)) {
    const capabilities = show.capabilities.filter((c): c is string => typeof c === "string");
    facts.supportsImages = capabilities.includes("vision");
    facts.nativeTools = capabilities.includes("tools");
    facts.reasoning = capabilities.includes("thinking");
  }
  return Object.keys(facts).length > 0 ? facts : undefined;
}

/** Asks Ollama about each model, one request each. */
export async function discoverOllama(baseUrl: string, ids: readonly string[], timeoutMs: number): Promise<Record<string, ModelFacts | undefined>> {
  const found: Record<string, ModelFacts | undefined> = {};
  for (const id of ids) found[id] = ollamaFacts(await fetchJson(`${rootOf(baseUrl)}/api/show`, { method: "POST", body: { model: id }, timeoutMs }).catch(notFound));
  return found;
}

/** Ollama answers a model it does not have with a 404: that model has nothing to say, the endpoint still works. */
function notFound(error: unknown): undefined {
  if ((error as { kind?: string }).kind === "unsupported") return undefined;
  throw error;
}

/** The models Ollama has pulled (`GET /api/tags`), by the names a request takes. */
export async function listOllama(baseUrl: string, timeoutMs: number): Promise<string[]> {
  const tags = await fetchJson(`${rootOf(baseUrl)}/api/tags`, { timeoutMs });
  const models = isRecord(tags) && Array.isArray(tags.models) ? tags.models : [];
  return models.flatMap((m) => (isRecord(m) && typeof m.name === "string" ? [m.name] : []));
}
