import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer } from "../support/scripted-model-server.js";
import { goodHeaders, rawRequest, startScriptedWeb, type WebRun } from "../support/web-harness.js";

let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const json = (body: unknown) => ({ body: JSON.stringify(body), contentType: { "Content-Type": "application/json" } });
const startTask = (w: WebRun, headers: Record<string, string>) =>
  rawRequest(w, { method: "POST", path: "/api/tasks", headers: { ...json({}).contentType, ...headers }, body: JSON.stringify({ text: "say hello" }) });

beforeEach(async () => {
  ws = tempDir("web-sec-ws");
  home = tempDir("web-sec-home");
  model = await startScriptedModelServer({ turns: [{ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "hello" } }] }] });
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model.close();
  ws.cleanup();
  home.cleanup();
});

const launch = (extra: string[] = []) =>
  startScriptedWeb(model, ws.dir, home.dir, extra);

describe("cairn web refuses what a hostile page could send", () => {
  it("prints one line with a loopback URL carrying a fresh token, and no warning", async () => {
    web = await launch();
    // The token rides in the fragment, which a browser never sends to any server.
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{20,}$/);
    expect(web.stdout().trim().split("\n")).toHaveLength(1);
    expect(web.stderr()).not.toMatch(/warning/);
    const second = await launch();
    try {
      expect(second.token).not.toBe(web.token);
    } finally {
      await second.stop();
    }
  });

  it("without the token header: every API and SSE request is refused and no task starts, a cookie holding the token included; with it, they work", async () => {
    web = await launch();
    const noToken = { Host: web.host };
    for (const path of ["/api/state", "/api/history", "/api/events"]) {
      const res = await rawRequest(web, { path, headers: noToken, readMs: 500 });
      expect(res.status, path).toBe(401);
      expect(res.body).not.toContain("data:");
    }
    const wrong = await rawRequest(web, { path: "/api/state", headers: { Host: web.host, Authorization: `Bearer ${"x".repeat(web.token.length)}` } });
    expect(wrong.status).toBe(401);
    // The old cookie, even holding the right token, grants nothing: browsers send it to every port of this host.
    const cookieOnly = { Host: web.host, Cookie: `cairn_web_${web.port}=${web.token}` };
    for (const path of ["/api/state", "/api/history", "/api/events"]) expect((await rawRequest(web, { path, headers: cookieOnly, readMs: 500 })).status, path).toBe(401);
    expect((await startTask(web, cookieOnly)).status).toBe(401);
    expect((await startTask(web, noToken)).status).toBe(401);
    expect(model.requests).toHaveLength(0);

    // Positive control: the same requests with the token.
    expect((await rawRequest(web, { path: "/api/state", headers: goodHeaders(web) })).status).toBe(200);
    const sse = await rawRequest(web, { path: "/api/events", headers: goodHeaders(web), readMs: 300 });
    expect(sse.status).toBe(200);
    expect(sse.headers["content-type"]).toMatch(/text\/event-stream/);
    // The page itself is public and holds no secret; an old ?token= link sets no cookie (the page moves the token to its storage).
    for (const path of ["/", `/?token=${web.token}`]) {
      const page = await rawRequest(web, { path, headers: { Host: web.host } });
      expect(page.status, path).toBe(200);
      expect(page.headers["set-cookie"], path).toBeUndefined();
      expect(page.body).not.toContain(web.token);
    }
    expect((await startTask(web, goodHeaders(web))).status).toBe(201);
    await expect.poll(() => model.requests.length, { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it("a forged Host header (DNS rebinding) is refused even with the token", async () => {
    web = await launch();
    for (const host of [`evil.example:${web.port}`, `localhost.evil.example:${web.port}`, `127.0.0.1:${web.port + 1}`, `[::1]:${web.port + 1}`]) {
      for (const path of ["/api/state", "/api/events", "/"]) {
        const res = await rawRequest(web, { path, headers: { ...goodHeaders(web), Host: host }, readMs: 500 });
        expect(res.status, `${host} ${path}`).toBe(421);
      }
      expect((await startTask(web, { ...goodHeaders(web), Host: host })).status).toBe(421);
    }
    expect(model.requests).toHaveLength(0);
    // Positive control: the bound host:port, and localhost for a loopback server.
    expect((await rawRequest(web, { path: "/api/state", headers: goodHeaders(web) })).status).toBe(200);
    expect((await rawRequest(web, { path: "/api/state", headers: { ...goodHeaders(web), Host: `localhost:${web.port}` } })).status).toBe(200);
  });

  it("cross-origin requests are refused even with the token: another site, another port of this host, a cross-site fetch", async () => {
    web = await launch();
    const foreign: Array<Record<string, string>> = [
      { Origin: "http://evil.example" },
      { Origin: `http://127.0.0.1:${web.port + 1}` },
      { Origin: "null" },
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
    ];
    for (const headers of foreign) {
      expect((await startTask(web, goodHeaders(web, headers))).status, JSON.stringify(headers)).toBe(403);
      const sse = await rawRequest(web, { path: "/api/events", headers: goodHeaders(web, headers), readMs: 500 });
      expect(sse.status).toBe(403);
      expect(sse.body).not.toContain("data:");
    }
    expect(model.requests).toHaveLength(0);
    // Positive control: the page's own origin.
    const own = await startTask(web, goodHeaders(web, { Origin: web.origin, "Sec-Fetch-Site": "same-origin" }));
    expect(own.status).toBe(201);
    await expect.poll(() => model.requests.length, { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it("listening beyond loopback needs --host and prints a warning", async () => {
    web = await launch(["--host", "0.0.0.0"]);
    expect(web.stderr()).toMatch(/warning: listening on 0\.0\.0\.0, reachable from other machines/);
    expect((await rawRequest(web, { path: "/api/state", headers: goodHeaders(web) })).status).toBe(200);
  });
});
