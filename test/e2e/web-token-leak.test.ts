/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer } from "../support/scripted-model-server.js";
import { goodHeaders, rawRequest, startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// The attack: any server on another port of 127.0.0.1 (a dev server the model started with the
// network on) that the person opens in the same browser must learn nothing that lets it call
// cairn web's API; cookies for 127.0.0.1 go to every port, so none may grant anything.
const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;
let other: Server | undefined;

beforeEach(() => {
  ws = tempDir("web-leak-ws");
  home = tempDir("web-leak-home");
  writeFileSync(path.join(ws.dir, "notes.txt"), "one\n");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  // The browser's page may still hold a connection to the other server: close it, or close() waits on it.
  other?.closeAllConnections();
  await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
  other = undefined;
  await model?.close();
  ws.cleanup();
  home.cleanup();
}, 60_000);

describe("cairn web's token never reaches another local server", { timeout: 90_000 }, () => {
  it("a server on another 127.0.0.1 port opened in the same browser gets no credential, and the old cookie form approves nothing; the header does", async () => {
    model = await startScriptedModelServer({
      turns: [
        { content: [{ type: "tool_use", name: "write_to_file", input: { path: "notes.txt", content: "approved by someone\n" } }] },
        { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "wrote it" } }] },
      ],
    });
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const w = web;
    // The person opens the printed link and starts a task from the page: it waits for approval.
    const page = await browser().newPage();
    await page.goto(w.url);
    expect(page.url()).toBe(`${w.origin}/`); // the token left the address bar
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.type("write the note\n");
    await page.keyboard.press("Enter");
    await page.locator('::-p-aria([name="Approve"][role="button"])').wait();

    // The other server records every request it gets, headers and all; its page pulls more from it.
    const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
    other = createServer((req, res) => {
      seen.push({ url: req.url ?? "", headers: req.headers });
      res.writeHead(200, { "Content-Type": req.url === "/" ? "text/html" : "text/plain" });
      res.end(req.url === "/" ? '<!doctype html><title>dev server</title><img src="/pixel.png"><script src="/app.js"></script>' : "");
    });
    await new Promise<void>((resolve) => other!.listen(0, "127.0.0.1", () => resolve()));
    const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const devPage = await browser().newPage();
    await devPage.goto(`${otherOrigin}/`, { waitUntil: "networkidle0" });
    await devPage.evaluate((o) => fetch(`${o}/api/probe`, { credentials: "include" }).then((r) => r.status), otherOrigin);
    const noCredential = () => {
      for (const request of seen) {
        expect(request.headers.cookie, request.url).toBeUndefined();
        expect(JSON.stringify(request.headers), request.url).not.toContain(w.token);
      }
    };
    expect(seen.map((r) => r.url)).toEqual(expect.arrayContaining(["/", "/pixel.png", "/api/probe"]));
    noCredential();
    // The Cairn tab itself keeps no cookie to leak.
    expect(await page.cookies()).toEqual([]);
    expect(await devPage.evaluate(() => document.cookie)).toBe("");

    // Server-side replays (no Origin, as a process would send them) with the old cookie form, or nothing: refused.
    const state = JSON.parse((await rawRequest(w, { path: "/api/state", headers: goodHeaders(w) })).body) as { tasks: Array<{ id: string }> };
    const id = state.tasks[0]!.id;
    const stream = await rawRequest(w, { path: "/api/events", headers: goodHeaders(w), readMs: 500 });
    const toolUseId = /"tool_use_id":"([^"]+)"/.exec(stream.body)![1]!;
    const approve = (headers: Record<string, string>) =>
      rawRequest(w, { method: "POST", path: `/api/tasks/${id}/approvals`, headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify({ tool_use_id: toolUseId, approved: true }) });
    const cookieOnly = { Host: w.host, Cookie: `cairn_web_${w.port}=${w.token}` };
    for (const headers of [cookieOnly, { Host: w.host }]) {
      expect((await approve(headers)).status, JSON.stringify(headers)).toBe(401);
      for (const p of ["/api/events", "/api/history", "/api/state"]) expect((await rawRequest(w, { path: p, headers, readMs: 300 })).status, p).toBe(401);
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(readFileSync(path.join(ws.dir, "notes.txt"), "utf8")).toBe("one\n");

    // Positive control: the same approval with the token in its header is taken, and the write happens.
    expect((await approve(goodHeaders(w))).status).toBe(200);
    await expect.poll(() => readFileSync(path.join(ws.dir, "notes.txt"), "utf8"), { timeout: 15_000 }).toBe("approved by someone\n");
    // The person follows a link from the Cairn tab to the other server: no token in its Referer or anywhere.
    await page.evaluate((o) => void (location.href = `${o}/from-cairn`), otherOrigin);
    await expect.poll(() => seen.some((r) => r.url === "/from-cairn"), { timeout: 10_000 }).toBe(true);
    noCredential();
    await page.close();
    await devPage.close();
  });

  it("a tab opened on the bare address says in one line to open the printed link; the printed link works and survives a reload", async () => {
    model = await startScriptedModelServer({ turns: [{ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "done" } }] }] });
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const bare = await browser().newPage();
    await bare.goto(`${web.origin}/`);
    await bare.locator("::-p-aria([role=\"alert\"])").wait();
    expect(await bare.evaluate(() => document.querySelector('[role="alert"]')!.textContent)).toBe(
      "This page needs the link cairn web printed in your terminal (it carries the access token). Open that link again.",
    );
    await bare.close();
    // Control: the printed link opens the working page, and a reload of that tab keeps working (the token is in its storage).
    const page = await browser().newPage();
    await page.goto(web.url);
    await page.reload();
    expect(page.url()).toBe(`${web.origin}/`);
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.type("finish");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.body.innerText.includes("Task completed."), { timeout: 30_000, polling: 100 });
    expect(model.requests.length).toBeGreaterThan(0);
    await page.close();
  });
});
