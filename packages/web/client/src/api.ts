import { apiFetch } from "./access-token.ts";
import type { TaskStatus } from "@cairn/host/task-status";
import type { AgentEvent, Mode } from "./task-state.ts";

/** Calls to the server, each with the access token in its Authorization header (access-token.ts). */
async function post(path: string, body: unknown): Promise<{ ok: true; data: Record<string, unknown> } | { ok: false; error: string }> {
  let res: Response;
  try {
    res = await apiFetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch {
    return { ok: false, error: "The cairn web server cannot be reached; is it still running?" };
  }
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) return { ok: false, error: typeof data.error === "string" ? data.error : `The server answered ${res.status}.` };
  return { ok: true, data };
}

async function get<T>(path: string): Promise<{ ok: true; data: T } | { ok: false; error: string }> {
  try {
    const res = await apiFetch(path);
    const data = (await res.json().catch(() => ({}))) as T & { error?: string };
    return res.ok ? { ok: true, data } : { ok: false, error: data.error ?? `The server answered ${res.status}.` };
  } catch {
    return { ok: false, error: "The cairn web server cannot be reached; is it still running?" };
  }
}

export type CheckpointEntry = { number: number; hash: string; label: string; created_at: string; message_index: number };

/** A provider the page may offer for a new task, with the models known for it (as the server's model-choices.ts sends them). */
export type ProviderOption = { id: string; models: string[]; key_env: string[]; has_key: boolean };
export type ModelChoice = { provider: string; model: string };
export type ModelCheck = { ok: true; provider: string; model: string; supports_images: boolean } | { ok: false; error: string };
export type UploadedImage = { id: string; media_type: string; bytes: number };

export const api = {
  start: (text: string, mode: Mode, images: string[] = [], model?: ModelChoice) =>
    post("/api/tasks", { text, mode, ...(images.length > 0 ? { images } : {}), ...(model ? { model } : {}) }),
  send: (id: string, text: string, images: string[] = []) => post(`/api/tasks/${encodeURIComponent(id)}/messages`, { text, ...(images.length > 0 ? { images } : {}) }),
  models: () => get<{ default: ModelChoice; providers: ProviderOption[]; settings_error?: string }>("/api/models"),
  checkModel: (choice: ModelChoice) => get<ModelCheck>(`/api/models/check?${new URLSearchParams(choice)}`),
  /** A picture's bytes as they are; the server judges the format by its contents. */
  uploadImage: async (file: Blob): Promise<{ ok: true; data: UploadedImage } | { ok: false; error: string }> => {
    try {
      const type = file.type.startsWith("image/") ? file.type : "application/octet-stream";
      const res = await apiFetch("/api/images", { method: "POST", headers: { "Content-Type": type }, body: file });
      const data = (await res.json().catch(() => ({}))) as UploadedImage & { error?: string };
      return res.ok ? { ok: true, data } : { ok: false, error: data.error ?? `The server answered ${res.status}.` };
    } catch {
      return { ok: false, error: "The cairn web server cannot be reached; is it still running?" };
    }
  },
  dropImage: (id: string) => apiFetch(`/api/images/${encodeURIComponent(id)}`, { method: "DELETE" }).catch(() => undefined),
  approve: (id: string, tool_use_id: string, approved: boolean, feedback?: string, remember?: "task" | "workspace" | "user") =>
    post(`/api/tasks/${encodeURIComponent(id)}/approvals`, { tool_use_id, approved, ...(feedback ? { feedback } : {}), ...(remember ? { remember } : {}) }),
  answer: (id: string, answer: string) => post(`/api/tasks/${encodeURIComponent(id)}/answer`, { answer }),
  prompt: (id: string, approved: boolean, feedback?: string, budgetUsd?: number) =>
    post(`/api/tasks/${encodeURIComponent(id)}/prompt`, { approved, ...(feedback ? { feedback } : {}), ...(budgetUsd !== undefined ? { budget_usd: budgetUsd } : {}) }),
  mode: (id: string, mode: Mode) => post(`/api/tasks/${encodeURIComponent(id)}/mode`, { mode }),
  stop: (id: string) => post(`/api/tasks/${encodeURIComponent(id)}/stop`, {}),
  /** Its answer's `summary` says in a line what was restored. */
  restore: (id: string, checkpoint: number, what: "files" | "conversation" | "both") => post(`/api/tasks/${encodeURIComponent(id)}/checkpoints/restore`, { checkpoint, what }),
  checkpoints: (id: string) => get<{ checkpoints: CheckpointEntry[] }>(`/api/tasks/${encodeURIComponent(id)}/checkpoints`),
  stepDiff: (id: string, n: number) => get<{ files: Array<{ path: string }>; patch: string }>(`/api/tasks/${encodeURIComponent(id)}/checkpoints/${n}/diff`),
  remove: async (id: string): Promise<string | undefined> => {
    try {
      const res = await apiFetch(`/api/history/${encodeURIComponent(id)}`, { method: "DELETE" });
      if (res.ok) return undefined;
      const data = (await res.json().catch(() => ({}))) as { error?: string };
      return data.error ?? `The server answered ${res.status}.`;
    } catch {
      return "The cairn web server cannot be reached; is it still running?";
    }
  },
  /** A stored task's journal (its events as recorded, the person's messages among them). */
  storedEvents: (id: string) => get<{ events: AgentEvent[] }>(`/api/history/${encodeURIComponent(id)}/events`),
  /** This server's workspace's tasks (every workspace's with `all`), each task's sub-agents and hand-offs after it. */
  history: async (all = false): Promise<{ workspace: string; tasks: HistoryEntry[] }> => {
    const res = await apiFetch(all ? "/api/history?all=1" : "/api/history");
    if (!res.ok) return { workspace: "", tasks: [] };
    return (await res.json()) as { workspace: string; tasks: HistoryEntry[] };
  },
};

/** A stored task as the history lists it; `status` as cairn history shows it (a dead process's "running" task is "interrupted"). */
export type HistoryEntry = {
  id: string;
  title: string;
  workspace: string;
  model: string;
  mode: string;
  status: TaskStatus;
  updatedAt: string;
  turns: number;
  totalCostUsd: number | null;
  /** Every token it sent and received (shown when its price is unknown). */
  tokens?: number;
  /** How deep under the task it came from it is listed (0: a task of its own). */
  depth: number;
  /** The task it carries on (a hand-off) or serves (a sub-agent). */
  parent?: { id: string; relation: "handoff" | "subagent" };
};
