import type { IncomingMessage, ServerResponse } from "node:http";

/** What a route's handler gets: the request, its answer, the parsed URL and the path's captured parts. */
export type RouteContext = { req: IncomingMessage; res: ServerResponse; url: URL; params: string[] };

/** One endpoint of the API: its method, its exact path or an anchored pattern (whose groups become `params`), its handler. */
export type Route = readonly [method: "GET" | "POST" | "DELETE", path: string | RegExp, handle: (context: RouteContext) => void | Promise<void>];

/**
 * The route a request takes; "wrong method" when its path is an endpoint's but not for this method
 * (405, not 404: the person named a real endpoint); undefined when no endpoint has that path.
 */
export function findRoute(routes: readonly Route[], method: string | undefined, pathname: string): { route: Route; params: string[] } | "wrong method" | undefined {
  let pathKnown = false;
  for (const route of routes) {
    const [routeMethod, path] = route;
    const params = typeof path === "string" ? (path === pathname ? [] : undefined) : path.exec(pathname)?.slice(1);
    if (params === undefined) continue;
    if (routeMethod === method) return { route, params: params.map((p) => p ?? "") };
    pathKnown = true;
  }
  return pathKnown ? "wrong method" : undefined;
}
