import type { FleetBoard } from "./fleet-board.js";
import { securityHeaders, send } from "./http-io.js";
import type { Route, RouteContext } from "./route-table.js";

const job = (action: string) => new RegExp(`^/api/fleet/jobs/([\\w.-]+)/${action}$`);

/**
 * The fleet's part of the API, behind the same token, Host and Origin checks as the rest (the server
 * runs them before any route). Without a board (no CAIRN_REDIS_URL) only GET /api/fleet answers, to say so.
 */
export function fleetRoutes(board: FleetBoard | undefined): Route[] {
  const withBoard = (handle: (board: FleetBoard, context: RouteContext) => Promise<void>) => (context: RouteContext) =>
    board ? handle(board, context) : send(context.res, 404, { error: "The fleet is not shown here: start cairn web with CAIRN_REDIS_URL set." });
  return [
    ["GET", "/api/fleet", async ({ res }) => {
      if (!board) return send(res, 200, { enabled: false });
      const error = await board.probe();
      send(res, 200, { enabled: true, redis: board.url, ...(error ? { error } : {}) });
    }],
    ["GET", "/api/fleet/jobs", withBoard(async (board, { res }) => {
      const jobs = await board.jobs();
      if (!jobs.ok) return send(res, jobs.status, { error: jobs.message });
      send(res, 200, { jobs: jobs.value });
    })],
    ["GET", job("events"), withBoard(async (board, { req, res, url, params: [id] }) => {
      const from = String(req.headers["last-event-id"] ?? url.searchParams.get("from") ?? "0-0");
      const streamed = await board.streamEvents(req, res, id!, from, securityHeaders);
      if (!streamed.ok) send(res, streamed.status, { error: streamed.message });
    })],
    ["GET", job("diff"), withBoard(async (board, { res, params: [id] }) => {
      const diff = await board.diff(id!);
      if (!diff.ok) return send(res, diff.status, { error: diff.message });
      send(res, 200, { diff: diff.value });
    })],
    ...(["cancel", "retry"] as const).map((action): Route => ["POST", job(action), withBoard(async (board, { res, params: [id] }) => {
      const done = action === "cancel" ? await board.cancel(id!) : await board.retry(id!);
      if (!done.ok) return send(res, done.status, { error: done.message });
      send(res, 200, { message: done.value });
    })]),
  ];
}
