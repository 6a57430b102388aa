/**
 * The access token `cairn web` printed, kept in this tab's sessionStorage. The link carries it in
 * its fragment (#token=…), which browsers never send to a server; storage is scoped to this
 * scheme, host and port, so a page served from another port of this machine cannot read it
 * (a cookie would be sent to every port). Each API call adds it as a header.
 */
const key = "cairn-web-token";

/** Moves a token from the address bar (the printed #token=…, or an older ?token=… link) into storage, and out of sight. */
export function adoptLinkToken(): void {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  const fromQuery = new URLSearchParams(location.search).get("token");
  const given = fromHash ?? fromQuery;
  if (!given) return;
  sessionStorage.setItem(key, given);
  history.replaceState(null, "", location.pathname);
}

export function accessToken(): string | undefined {
  return sessionStorage.getItem(key) ?? undefined;
}

/** The header every /api call carries. */
export function authHeaders(): Record<string, string> {
  const token = accessToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** fetch() for the API, with the token; the browser sends no cookie of ours (there is none). */
export function apiFetch(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(path, { ...init, credentials: "omit", headers: { ...(init.headers as Record<string, string> | undefined), ...authHeaders() } });
}
