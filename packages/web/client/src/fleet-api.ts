/** The fleet's part of the server's API, as the page reads it: cairn fleet's JobView, and the branch diff. */
import type { JobView } from "@cairn/host/fleet/job-view";
import { apiFetch } from "./access-token.ts";
import type { FleetDiff } from "../../src/fleet-diff.ts";

export type FleetJob = JobView;
export type { FleetDiff };

type Answer<T> = { ok: true; data: T } | { ok: false; error: string };

async function call<T>(path: string, method: "GET" | "POST" = "GET"): Promise<Answer<T>> {
  try {
    const res = await apiFetch(path, { method, ...(method === "POST" ? { headers: { "Content-Type": "application/json" }, body: "{}" } : {}) });
    const data = (await res.json().catch(() => ({}))) as T & { error?: string };
    return res.ok ? { ok: true, data } : { ok: false, error: data.error ?? `The server answered ${res.status}.` };
  } catch {
    return { ok: false, error: "The cairn web server cannot be reached; is it still running?" };
  }
}

const job = (id: string) => `/api/fleet/jobs/${encodeURIComponent(id)}`;

export const fleetApi = {
  status: () => call<{ enabled: boolean; redis?: string; error?: string }>("/api/fleet"),
  jobs: () => call<{ jobs: FleetJob[] }>("/api/fleet/jobs"),
  diff: (id: string) => call<{ diff: FleetDiff | null }>(`${job(id)}/diff`),
  cancel: (id: string) => call<{ message: string }>(`${job(id)}/cancel`, "POST"),
  retry: (id: string) => call<{ message: string }>(`${job(id)}/retry`, "POST"),
  eventsUrl: (id: string) => `${job(id)}/events`,
};
