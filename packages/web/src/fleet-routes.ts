import type { IncomingMessage, ServerResponse } from "node:http";
import type { FleetBoard } from "./fleet-board.js";
import { securityHeaders, send } from "./http-io.js";

const jobRoute = /^\/api\/fleet\/jobs\/([\w.-]+)\/(events|diff|cancel|retry)$/;

/**
 * The fleet's part of the API, behind the same token, Host and Origin checks as the rest (the server
 * runs them before any route). Answers false for a path that is not the fleet's.
 */
export async function fleetRoute(board: FleetBoard | undefined, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (!url.pathname.startsWith("/api/fleet")) return false;
  if (url.pathname === "/api/fleet" && req.method === "GET") {
    if (!board) return send(res, 200, { enabled: false }), true;
    const error = await board.probe();
    return send(res, 200, { enabled: true, redis: board.url, ...(error ? { error } : {}) }), true;
  }
  if (!board) return send(res, 404, { error: "The fleet is not shown here: start cairn web with CAIRN_REDIS_URL set." }), true;
  if (url.pathname === "/api/fleet/jobs" && req.method === "GET") {
    const jobs = await board.jobs();
    return (jobs.ok ? send(res, 200, { jobs: jobs.value }) : send(res, jobs.status, { error: jobs.message })), true;
  }
  const match = jobRoute.exec(url.pathname);
  if (!match) return send(res, 404, { error: `No such endpoint: ${req.method} ${url.pathname}.` }), true;
  const [, id, action] = match as unknown as [string, string, string];
  if (action === "events" && req.method === "GET") {
    const from = String(req.headers["last-event-id"] ?? url.searchParams.get("from") ?? "0-0");
    const streamed = await board.streamEvents(req, res, id, from, securityHeaders);
    if (!streamed.ok) send(res, streamed.status, { error: streamed.message });
    return true;
  }
  if (action === "diff" && req.method === "GET") {
    const diff = await board.diff(id);
    return (diff.ok ? send(res, 200, { diff: diff.value }) : send(res, diff.status, { error: diff.message })), true;
  }
  if ((action === "cancel" || action === "retry") && req.method === "POST") {
    const done = action === "cancel" ? await board.cancel(id) : await board.retry(id);
    return (done.ok ? send(res, 200, { message: done.value }) : send(res, done.status, { error: done.message })), true;
  }
  return send(res, 405, { error: "Method not allowed." }), true;
}
