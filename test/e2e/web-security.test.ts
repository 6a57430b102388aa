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
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    expect(web.stdout().trim().split("\n")).toHaveLength(1);
    expect(web.stderr()).not.toMatch(/warning/);
    const second = await launch();
    try {
      expect(second.token).not.toBe(web.token);
    } finally {
      await second.stop();
    }
  });

  it("without the token: every API, SSE and page request is refused and no task starts; with it, they work", async () => {
    web = await launch();
    const noToken = { Host: web.host };
    for (const path of ["/api/state", "/api/history", "/api/events", "/"]) {
      const res = await rawRequest(web, { path, headers: noToken, readMs: 500 });
      expect(res.status, path).toBe(401);
      expect(res.body).not.toContain("data:");
    }
    const wrong = await rawRequest(web, { path: "/api/state", headers: { Host: web.host, Authorization: `Bearer ${"x".repeat(web.token.length)}` } });
    expect(wrong.status).toBe(401);
    const cookieWrong = await rawRequest(web, { path: "/api/state", headers: { Host: web.host, Cookie: `cairn_web_${web.port}=nope` } });
    expect(cookieWrong.status).toBe(401);
    expect((await startTask(web, noToken)).status).toBe(401);
    expect(model.requests).toHaveLength(0);

    // Positive control: the same requests with the token.
    expect((await rawRequest(web, { path: "/api/state", headers: goodHeaders(web) })).status).toBe(200);
    const sse = await rawRequest(web, { path: "/api/events", headers: goodHeaders(web), readMs: 300 });
    expect(sse.status).toBe(200);
    expect(sse.headers["content-type"]).toMatch(/text\/event-stream/);
    // The page's link: the token moves into an HttpOnly, SameSite=Strict cookie, and the URL loses it.
    const link = await rawRequest(web, { path: `/?token=${web.token}`, headers: { Host: web.host } });
    expect(link.status).toBe(303);
    expect(link.headers.location).toBe("/");
    const cookie = String(link.headers["set-cookie"]);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const withCookie = await rawRequest(web, { path: "/api/state", headers: { Host: web.host, Cookie: cookie.split(";")[0]! } });
    expect(withCookie.status).toBe(200);
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
