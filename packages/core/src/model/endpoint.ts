import type { ProviderId } from "./types.js";

/**
 * Where a model's requests go, as error messages name it. Built once from a base URL that has
 * already been checked to carry no credentials, so anything printed from it is safe to show.
 */
export type Endpoint = {
  provider: ProviderId;
  model: string;
  /** The API root, e.g. http://localhost:11434/v1. */
  url: string;
  /** Environment variables a key is read from, in order (CAIRN_API_KEY included). */
  keyEnv: readonly string[];
};

/** Where the SDKs send requests when no base URL is given; only for messages. */
export const officialApiUrls: Partial<Record<ProviderId, string>> = {
  anthropic: "https://api.anthropic.com/v1",
  openai: "https://api.openai.com/v1",
};

/** A base URL's host part with any user:password@ replaced, for messages about a URL that is refused. */
export function redactUrl(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1***@");
}

/**
 * Checks a base URL once, at configuration time: a URL, http(s), and no credentials in it (they
 * would end up in messages, logs and process listings). Returns a message naming what to change.
 */
export function baseUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `The base URL "${redactUrl(raw)}" is not a URL: pass an API root such as http://localhost:8000/v1 to --base-url.`;
  }
  if (url.username !== "" || url.password !== "") {
    return `The base URL ${redactUrl(raw)} has a user name or password in it: remove them, and put the key in CAIRN_API_KEY (or the provider's own key variable) instead.`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `The base URL ${raw} must start with http:// or https://, e.g. http://localhost:8000/v1.`;
  }
  return undefined;
}

const localHosts = new Set(["localhost", "127.0.0.1", "[::1]", "::1", "0.0.0.0"]);

/** True for a server on this machine, where "connection refused" means it is not running. */
export function isLocalUrl(raw: string): boolean {
  let host: string;
  try {
    host = new URL(raw).hostname.toLowerCase();
  } catch {
    return false;
  }
  return localHosts.has(host) || host.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function originOf(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return raw;
  }
}

export function hostOf(raw: string): string {
  try {
    return new URL(raw).host;
  } catch {
    return raw;
  }
}

/** What to tell a person whose local model server refused the connection. */
export function localServerHint(endpoint: Endpoint): string {
  const origin = originOf(endpoint.url);
  switch (endpoint.provider) {
    case "ollama":
      return `Connection refused: is Ollama running at ${origin}? Start it with \`ollama serve\` or pass --base-url.`;
    case "lmstudio":
      return `Connection refused: is LM Studio's server running at ${origin}? Start it with \`lms server start\` (or from LM Studio's Developer tab) or pass --base-url.`;
    default:
      return `Connection refused: is the server running at ${endpoint.url}? Start it or pass the right --base-url.`;
  }
}
