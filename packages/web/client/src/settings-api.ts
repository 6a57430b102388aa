/** The Settings view's part of the server's API (settings-routes.ts), as core's settings editor words it. */
import { apiFetch } from "./access-token.ts";

export type AutoApproveEntry = { name: string; category: string; on: boolean };
export type McpServerEntry = { name: string; source: "global" | "project"; file: string; enabled: boolean; status: string; tools: string[]; error?: string };
export type RuleFileEntry = { path: string; source: string; scope: "global" | "project"; on: boolean };
export type Settings = {
  file: string;
  problem?: string;
  autoApprove: AutoApproveEntry[];
  maxRequests?: number;
  provider: string;
  model: string;
  keySet: boolean;
  keyVariables: string[];
  keyNeeded: boolean;
  providers: string[];
  sandboxMode: string;
  sandboxModes: string[];
  mcpServers: McpServerEntry[];
  rules: RuleFileEntry[];
  /** Keys set above the file (this server's flags, the environment, the workspace): tasks here take those. */
  overridden: Array<{ key: string; by: string }>;
};

export type SettingsChange =
  | { kind: "autoApprove"; name: string; on: boolean }
  | { kind: "maxRequests"; value: string }
  | { kind: "model"; provider: string; model?: string }
  | { kind: "sandboxMode"; value: string }
  | { kind: "rule"; path: string; on: boolean }
  | { kind: "mcpServer"; name: string; enabled: boolean };

type Answer<T> = { ok: true; data: T } | { ok: false; error: string };

async function call<T>(path: string, body?: unknown): Promise<Answer<T>> {
  try {
    const res = await apiFetch(path, body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = (await res.json().catch(() => ({}))) as T & { error?: string };
    return res.ok ? { ok: true, data } : { ok: false, error: data.error ?? `The server answered ${res.status}.` };
  } catch {
    return { ok: false, error: "The cairn web server cannot be reached; is it still running?" };
  }
}

export const settingsApi = {
  read: () => call<Settings>("/api/settings"),
  change: (change: SettingsChange) => call<Settings>("/api/settings", change),
  restartServer: (name: string) => call<McpServerEntry>(`/api/settings/mcp/${encodeURIComponent(name)}/restart`, {}),
};
