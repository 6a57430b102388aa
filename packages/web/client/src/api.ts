/** Calls to the server. The access token travels in an HttpOnly cookie the page cannot read. */
async function post(path: string, body: unknown): Promise<{ ok: true; data: Record<string, unknown> } | { ok: false; error: string }> {
  let res: Response;
  try {
    res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" });
  } catch {
    return { ok: false, error: "The cairn web server cannot be reached; is it still running?" };
  }
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) return { ok: false, error: typeof data.error === "string" ? data.error : `The server answered ${res.status}.` };
  return { ok: true, data };
}

export const api = {
  start: (text: string, mode: "act" | "plan") => post("/api/tasks", { text, mode }),
  send: (id: string, text: string) => post(`/api/tasks/${encodeURIComponent(id)}/messages`, { text }),
  approve: (id: string, tool_use_id: string, approved: boolean, feedback?: string) =>
    post(`/api/tasks/${encodeURIComponent(id)}/approvals`, { tool_use_id, approved, ...(feedback ? { feedback } : {}) }),
  answer: (id: string, answer: string) => post(`/api/tasks/${encodeURIComponent(id)}/answer`, { answer }),
  prompt: (id: string, approved: boolean, feedback?: string) => post(`/api/tasks/${encodeURIComponent(id)}/prompt`, { approved, ...(feedback ? { feedback } : {}) }),
  stop: (id: string) => post(`/api/tasks/${encodeURIComponent(id)}/stop`, {}),
  history: async (): Promise<HistoryEntry[]> => {
    const res = await fetch("/api/history", { credentials: "same-origin" });
    if (!res.ok) return [];
    return ((await res.json()) as { tasks: HistoryEntry[] }).tasks;
  },
};

export type HistoryEntry = { id: string; title: string; workspace: string; model: string; mode: string; status: string; updatedAt: string; turns: number; totalCostUsd: number | null };
