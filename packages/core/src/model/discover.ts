import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ModelFacts } from "./capabilities.js";
import { DiscoveryFailure } from "./discover-fetch.js";
import { discoverLmstudio, listLmstudio } from "./discover-lmstudio.js";
import { discoverOllama, listOllama } from "./discover-ollama.js";
import { discoverOpenrouter } from "./discover-openrouter.js";
import { redactUrl } from "./endpoint.js";
import type { ProviderId } from "./types.js";

type Discover = (baseUrl: string, ids: readonly string[], timeoutMs: number) => Promise<Record<string, ModelFacts | undefined>>;

/** The endpoints that can say what their models take; others are described by the built-in list and settings alone. */
const discoverers: Partial<Record<ProviderId, Discover>> = { ollama: discoverOllama, lmstudio: discoverLmstudio, openrouter: discoverOpenrouter };
/**
 * The local endpoints that list the models a person has on them (OpenRouter's hundreds are left to
 * the built-in list and settings).
 */
const listers: Partial<Record<ProviderId, (baseUrl: string, timeoutMs: number) => Promise<string[]>>> = { ollama: listOllama, lmstudio: listLmstudio };
/** A listed name is shown in the terminal and sent back as a model id: only a name's characters, and not too many. */
const listedName = /^[\w.:/@+-]{1,200}$/;
const maxListed = 500;

/** Which endpoint: the facts of a model are the facts of the server that serves it. */
export type DiscoveryTarget = { home: string; provider: ProviderId; baseUrl: string | undefined };

/** How long an answer holds (a model pulled again under its name is seen within the hour), and how long a failure is not retried. */
export const discoveryTtlMs = 60 * 60 * 1000;
const failureTtlMs = 5 * 60 * 1000;
/** A run waits at most this long for an endpoint to describe its model. */
export const discoveryTimeoutMs = 3_000;

type Entry = { until: number; facts?: ModelFacts };
type CacheFile = { url: string; models: Record<string, Entry>; listed?: { until: number; ids: string[] } };

function cacheFile(target: DiscoveryTarget): string | undefined {
  if (!target.baseUrl || !discoverers[target.provider]) return undefined;
  const key = createHash("sha256").update(target.baseUrl).digest("hex").slice(0, 16);
  return path.join(target.home, "cache", "models", `${target.provider}-${key}.json`);
}

/** This process's answers, for a CAIRN_HOME it cannot write. */
const remembered = new Map<string, CacheFile>();

function readCache(file: string): CacheFile | undefined {
  const known = remembered.get(file);
  if (known) return known;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as CacheFile;
    return typeof parsed === "object" && parsed !== null && typeof parsed.models === "object" && parsed.models !== null ? parsed : undefined;
  } catch {
    return undefined; // none yet, or damaged: asked again
  }
}

/** What the endpoint last said about the model (kept past its time until asked again), or undefined. */
export function discoveredFacts(target: DiscoveryTarget, id: string): ModelFacts | undefined {
  const file = cacheFile(target);
  return file ? readCache(file)?.models[id]?.facts : undefined;
}

/** The models the endpoint last listed (Ollama's pulled models, LM Studio's downloaded ones), or none. */
export function listedModels(target: DiscoveryTarget): string[] {
  const file = cacheFile(target);
  return (file ? readCache(file)?.listed?.ids : undefined) ?? [];
}

/**
 * Asks the endpoint what the models take (images, context window, tools, reasoning, price) unless
 * it answered within the hour, and keeps the answer under CAIRN_HOME/cache/models. Never fails:
 * an endpoint that does not speak its API, or is down (the request itself will say so), is
 * passed over in silence; one too slow to answer or answering nonsense gets one `notice`.
 * `learned`: the endpoint described one of the models, so models made before should be made again.
 * `list`: the models the endpoint has are listed too (listedModels), on the same terms.
 */
export async function discoverModels(target: DiscoveryTarget, ids: readonly string[], o: { timeoutMs?: number; now?: number; list?: boolean } = {}): Promise<{ learned: boolean; notice?: string }> {
  const file = cacheFile(target);
  const discover = discoverers[target.provider];
  if (!file || !discover || !target.baseUrl) return { learned: false };
  const now = o.now ?? Date.now();
  const timeoutMs = o.timeoutMs ?? discoveryTimeoutMs;
  const cache: CacheFile = readCache(file) ?? { url: redactUrl(target.baseUrl), models: {} };
  const stale = [...new Set(ids)].filter((id) => !(cache.models[id] && cache.models[id].until > now));
  const lister = o.list === true && !(cache.listed && cache.listed.until > now) ? listers[target.provider] : undefined;
  if (stale.length === 0 && lister === undefined) return { learned: false };
  const listing = lister?.(target.baseUrl, timeoutMs).then(
    (names) => ({ until: now + discoveryTtlMs, ids: names.filter((name) => listedName.test(name)).slice(0, maxListed) }),
    // Not listed for a while; a slow or odd endpoint gets its notice from the description below.
    () => ({ until: now + failureTtlMs, ids: cache.listed?.ids ?? [] }),
  );
  let notice: string | undefined;
  let learned = false;
  try {
    const found = stale.length === 0 ? {} : await discover(target.baseUrl, stale, timeoutMs);
    for (const [id, facts] of Object.entries(found)) cache.models[id] = { until: now + discoveryTtlMs, ...(facts ? { facts } : {}) };
    for (const id of stale) cache.models[id] ??= { until: now + discoveryTtlMs };
    learned = stale.some((id) => cache.models[id]?.facts !== undefined);
  } catch (error) {
    if (!(error instanceof DiscoveryFailure)) throw error;
    for (const id of stale) cache.models[id] = { ...cache.models[id], until: now + failureTtlMs };
    if (error.kind === "timeout" || error.kind === "bad-answer") {
      notice = `${target.provider} at ${redactUrl(target.baseUrl)} did not say what ${stale.join(", ")} can do (${error.message}); using settings.json's "models" and built-in guesses.`;
    }
  }
  if (listing) cache.listed = await listing;
  remembered.set(file, cache);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(cache)}\n`);
    renameSync(temporary, file);
  } catch {
    // A read-only CAIRN_HOME: the answer still serves this process's models below.
  }
  return { learned, ...(notice ? { notice } : {}) };
}
