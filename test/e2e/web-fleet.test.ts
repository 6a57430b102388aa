/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromiumArgs, findChromium } from "@cairn/core";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, startFleet, waitUntil, type Fleet } from "../support/fleet-harness.js";
import { goodHeaders, rawRequest, startWeb, type WebRun } from "../support/web-harness.js";

/**
 * The fleet in cairn web, for real: a redis-server, a `cairn fleet worker` process running jobs
 * against the scripted model server and pushing branches into a local repository, jobs added with
 * `cairn fleet add`, and the page in Chromium following them: state, events, result, diff, cancel.
 */
let f: Fleet;
let web: WebRun;
let browser: Browser;
let page: Page;
const repoRoot = path.resolve(import.meta.dirname, "../..");

beforeAll(async () => {
  const found = await findChromium();
  if (!found.found) throw new Error(found.message);
  f = await startFleet(["alpha"]);
  await f.startWorker("w1", ["--concurrency", "1"]);
  const home = path.join(f.root.dir, "web-home");
  mkdirSync(home);
  web = await startWeb(["--cwd", f.root.dir], { env: f.env({ CAIRN_HOME: home }), cwd: repoRoot });
  browser = await puppeteer.launch({ executablePath: found.path, headless: true, args: chromiumArgs() });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(web.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await f?.stop();
});

const bodyText = () => page.evaluate(() => document.body.innerText);
const waitForText = (text: string, timeout = 30_000) => page.waitForFunction((t) => document.body.innerText.includes(t), { timeout, polling: 100 }, text);
/** The state cell of a job's row in the Fleet table. */
const rowState = (id: string) =>
  page.evaluate((jobId) => {
    const row = [...document.querySelectorAll("table.fleet-table tbody tr")].find((tr) => tr.querySelector("button")?.textContent === jobId);
    return row?.querySelector(".job-state")?.textContent ?? null;
  }, id);
const waitForRowState = (id: string, state: string, timeout = 30_000) =>
  page.waitForFunction(
    (jobId, want) => {
      const row = [...document.querySelectorAll("table.fleet-table tbody tr")].find((tr) => tr.querySelector("button")?.textContent === jobId);
      return row?.querySelector(".job-state")?.textContent === want;
    },
    { timeout, polling: 200 },
    id,
    state,
  );

describe("cairn web shows the fleet", { timeout: 60_000 }, () => {
  it("says on the terminal that it shows the fleet on the Redis it was given", () => {
    expect(web.stderr()).toContain(`cairn: showing the fleet on ${f.redis.url}`);
  });

  it("a job added with cairn fleet add: listed, completed, its events as tool cards, its result and its branch's diff", async () => {
    await page.locator('::-p-aria([name="Fleet"][role="button"])').click();
    const id = await f.add(f.repos[0]!, "webjob");
    await page.waitForFunction((jobId) => [...document.querySelectorAll("table.fleet-table button")].some((b) => b.textContent === jobId), { timeout: 20_000, polling: 200 }, id);
    await page.locator(`::-p-aria([name="${id}"][role="button"])`).click();
    await waitForRowState(id, "completed");
    // The worker's run, folded by core's reducer into the same cards as a local task.
    await page.waitForSelector('[aria-label="write_to_file: done"]', { timeout: 20_000 });
    await page.waitForSelector('[aria-label="attempt_completion: done"]', { timeout: 20_000 });
    await waitForText("attempt 1 on w1");
    await waitForText("completed: success, cairn/");
    const text = await bodyText();
    expect(text).toContain("Result: success");
    expect(text).not.toContain("waited 0s"); // the provider was never paused: no note of a wait
    expect(text).toContain("wrote webjob.txt");
    expect(text).toContain(`cairn/${id} (pushed to ${f.repos[0]})`);
    expect(text).toMatch(/Files changed\s+webjob\.txt/);
    expect(text).toMatch(/w1\s+1\s/); // the row: worker, attempts
    // The diff is read from the branch in the repository, and matches what git has there.
    const diff = await page.waitForSelector('section[aria-label="Branch diff"] figure[aria-label="Changes to webjob.txt"]', { timeout: 20_000 });
    const shown = await diff!.evaluate((el) => el.querySelector(".diff-unified")?.textContent ?? "");
    expect(shown).toContain("written by job webjob");
    expect(git(f.repos[0]!, "show", `cairn/${id}:webjob.txt`)).toBe("written by job webjob\n");
    if (process.env.UPDATE_SCREENSHOTS === "1") await page.screenshot({ path: path.join(repoRoot, "docs/web/fleet.png"), fullPage: true });
  });

  it("the fleet API refuses a request without the token, from a foreign origin or with a forged Host; cancel from the page stops a running job, retry runs it again", async () => {
    f.behaviour.hangAlways.add("stuck");
    const id = await f.add(f.repos[0]!, "stuck");
    await waitUntil(() => (f.seen.get("stuck")?.length ?? 0) > 0, 20_000, () => "the job never reached the model");

    const noToken = await rawRequest(web, { path: "/api/fleet/jobs", headers: { Host: web.host } });
    expect(noToken.status).toBe(401);
    expect(noToken.body).not.toContain(id);
    const cancelNoToken = await rawRequest(web, { method: "POST", path: `/api/fleet/jobs/${id}/cancel`, headers: { Host: web.host, "Content-Type": "application/json" }, body: "{}" });
    expect(cancelNoToken.status).toBe(401);
    const cancelForeign = await rawRequest(web, { method: "POST", path: `/api/fleet/jobs/${id}/cancel`, headers: goodHeaders(web, { Origin: "http://evil.example", "Content-Type": "application/json" }), body: "{}" });
    expect(cancelForeign.status).toBe(403);
    const forgedHost = await rawRequest(web, { path: `/api/fleet/jobs/${id}/events`, headers: goodHeaders(web, { Host: `rebound.example:${web.port}` }), readMs: 500 });
    expect(forgedHost.status).toBe(421);
    expect(forgedHost.body).not.toContain("stuck");
    // None of them reached the queue: the job still runs. The control: the same list with the token.
    const listed = await rawRequest(web, { path: "/api/fleet/jobs", headers: goodHeaders(web) });
    expect(listed.status).toBe(200);
    const jobs = (JSON.parse(listed.body) as { jobs: Array<{ id: string; state: string }> }).jobs;
    expect(jobs.find((j) => j.id === id)?.state).toBe("active");

    await page.locator(`::-p-aria([name="${id}"][role="button"])`).click();
    await waitForRowState(id, "active");
    // Its events arrive while it runs (the worker's start; the run's first request hangs at the model).
    await page.waitForFunction(() => (document.querySelector('[aria-label="Job events"]') as HTMLElement | null)?.innerText.includes("attempt 1 on w1"), { timeout: 20_000, polling: 200 });
    await page.locator('::-p-aria([name="Cancel job"][role="button"])').click();
    await waitForRowState(id, "cancelled", 20_000);
    // The worker's own end event, from the job's stream, closes its events.
    await page.waitForFunction(() => (document.querySelector('[aria-label="Job events"]') as HTMLElement | null)?.innerText.trim().endsWith("cancelled"), { timeout: 20_000, polling: 200 });
    expect(await rowState(id)).toBe("cancelled");
    // What cairn fleet itself says, and nothing was pushed.
    const status = await f.status();
    expect(status.find((j) => j.id === id)?.state).toBe("cancelled");
    expect(() => git(f.repos[0]!, "rev-parse", "--verify", "--quiet", `cairn/${id}`)).toThrow();

    // Retry from the page: the model answers this time, and the job completes with its branch pushed.
    f.behaviour.hangAlways.delete("stuck");
    await page.locator('::-p-aria([name="Retry job"][role="button"])').click();
    await waitForRowState(id, "completed", 30_000);
    expect(git(f.repos[0]!, "show", `cairn/${id}:stuck.txt`)).toBe("written by job stuck\n");
  });

  it("when Redis cannot be reached, the terminal and the page say so in one line", async () => {
    const away = await startWeb(["--cwd", f.root.dir], { env: f.env({ CAIRN_HOME: path.join(f.root.dir, "web-home-2"), CAIRN_REDIS_URL: "redis://127.0.0.1:1" }), cwd: repoRoot });
    try {
      await waitUntil(() => away.stderr().includes("Fleet view"), 10_000, () => away.stderr());
      expect(away.stderr()).toMatch(/^cairn: the Fleet view waits for Redis: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*$/m);
      const jobs = await rawRequest(away, { path: "/api/fleet/jobs", headers: goodHeaders(away) });
      expect(jobs.status).toBe(503);
      expect(JSON.parse(jobs.body).error).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
    } finally {
      await away.stop();
    }
  });
});
