import { describe, expect, it } from "vitest";
import { findRoute, type Route } from "./route-table.js";

const routes: Route[] = [
  ["GET", "/api/state", () => {}],
  ["POST", /^\/api\/tasks\/([\w.-]+)\/stop$/, () => {}],
  ["GET", /^\/api\/tasks\/([\w.-]+)\/checkpoints\/(\d+)\/diff$/, () => {}],
];

describe("findRoute", () => {
  it("finds an exact path or a pattern, with the pattern's parts as params", () => {
    expect(findRoute(routes, "GET", "/api/state")).toEqual({ route: routes[0], params: [] });
    expect(findRoute(routes, "POST", "/api/tasks/t-1/stop")).toEqual({ route: routes[1], params: ["t-1"] });
    expect(findRoute(routes, "GET", "/api/tasks/t-1/checkpoints/3/diff")).toEqual({ route: routes[2], params: ["t-1", "3"] });
  });

  it("tells a known path asked with another method (405) from a path no endpoint has (404)", () => {
    expect(findRoute(routes, "DELETE", "/api/state")).toBe("wrong method");
    expect(findRoute(routes, "GET", "/api/tasks/t-1/stop")).toBe("wrong method");
    expect(findRoute(routes, "GET", "/api/nothing")).toBeUndefined();
    expect(findRoute(routes, "POST", "/api/tasks/t-1/stop/more")).toBeUndefined();
  });
});
