import type { ModelFacts } from "./capabilities.js";
import { fetchJson, isRecord, rootOf, tokens } from "./discover-fetch.js";

/**
 * What LM Studio's own API says of its models (`GET /api/v0/models`): each entry's type ("vlm"
 * takes images, "llm" does not), its context length (the loaded one, else the most it can load)
 * and, where the version lists them, its capabilities ("tool_use").
 */
export function lmstudioFacts(list: unknown): Record<string, ModelFacts> {
  const found: Record<string, ModelFacts> = {};
  const data = isRecord(list) && Array.isArray(list.data) ? list.data : [];
  for (const model of data) {
    if (!isRecord(model) || typeof model.id !== "string") continue;
    const facts: ModelFacts = {};
    const window = tokens(model.loaded_context_length) ?? tokens(model.max_context_length);
    if (window) facts.contextWindow = window;
    if (model.type === "vlm" || model.type === "llm") facts.supportsImages = model.type === "vlm";
    if (Array.isArray(model.capabilities)) facts.nativeTools = model.capabilities.includes("tool_use");
    found[model.id] = facts;
  }
  return found;
}

export async function discoverLmstudio(baseUrl: string, _ids: readonly string[], timeoutMs: number): Promise<Record<string, ModelFacts | undefined>> {
  return lmstudioFacts(await fetchJson(`${rootOf(baseUrl)}/api/v0/models`, { timeoutMs }));
}

/** The chat models LM Studio has downloaded (`GET /api/v0/models`), embedding models left out. */
export async function listLmstudio(baseUrl: string, timeoutMs: number): Promise<string[]> {
  const list = await fetchJson(`${rootOf(baseUrl)}/api/v0/models`, { timeoutMs });
  const data = isRecord(list) && Array.isArray(list.data) ? list.data : [];
  return data.flatMap((m) => (isRecord(m) && typeof m.id === "string" && (m.type === "llm" || m.type === "vlm") ? [m.id] : []));
}
