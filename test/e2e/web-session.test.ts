/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, startCairn, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { pressButton, startScriptedWeb, startWeb, useChromium, type WebRun } from "../support/web-harness.js";

// What the page shows of a task's life that other hosts showed first: a task whose process died,
// a hand-off to a new task, the focus chain, and one card per call when the provider reuses ids.
const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const call = (name: string, input: Record<string, unknown>, id?: string): ScriptedTurn => ({ content: [{ type: "tool_use", name, input, ...(id ? { id } : {}) }] });
const done = (result: string, extra: Record<string, unknown> = {}) => call("attempt_completion", { result, ...extra });

beforeEach(() => {
  ws = tempDir("web-session-ws");
  home = tempDir("web-session-home");
  writeFileSync(path.join(ws.dir, "greeting.txt"), "hello world\n");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  ws.cleanup();
  home.cleanup();
});

async function openPage(w: WebRun, url = w.url): Promise<Page> {
  const page = await browser().newPage();
  await page.goto(url);
  return page;
}

async function typeInto(page: Page, box: "Task" | "Task message", text: string): Promise<void> {
  await page.locator(`::-p-aria([name="${box}"][role="textbox"])`).click();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

const text = (page: Page, selector = "body") => page.$eval(selector, (n) => (n as HTMLElement).innerText);
const waitForText = (page: Page, wanted: string, selector = "body", timeout = 30_000) =>
  page.waitForFunction((t, s) => (document.querySelector(s) as HTMLElement | null)?.innerText.includes(t), { timeout, polling: 100 }, wanted, selector);
const taskIds = () => readdirSync(path.join(home.dir, "tasks")).filter((name) => name !== "index.json");
const metadata = (id: string) => JSON.parse(readFileSync(path.join(home.dir, "tasks", id, "metadata.json"), "utf8")) as { pid: number; status: string; title: string; parent?: { id: string; relation: string } };

/** The tool cards on screen, as "name: status" (their accessible names), in order. */
const cards = (page: Page) => page.$$eval("article.tool-card", (all) => all.map((a) => a.getAttribute("aria-label") ?? ""));

describe("cairn web: a task's whole life, as the other hosts show it", { timeout: 120_000 }, () => {
  it("a task whose process died (a killed cairn web, a crashed cairn run) shows as interrupted, not running", async () => {
    // The second request of each task hangs: the task is mid-run when its process is killed.
    const hang: ScriptedTurn = { delayMs: 600_000, content: [{ type: "text", text: "never" }] };
    model = await startScriptedModelServer({ turns: [call("read_file", { path: "greeting.txt" }), hang, call("read_file", { path: "greeting.txt" }), hang] });
    const env = cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir });
    const run = startCairn(["run", "--provider", "anthropic", "--base-url", model.url, "--cwd", ws.dir, "--json", "Crashing run task"], { env });
    await run.waitForLine((l) => l.includes('"tool_call_update"') && l.includes('"completed"'), 30_000);
    await expect.poll(() => model.requests.length, { timeout: 30_000 }).toBe(2); // waiting on the model
    run.child.kill("SIGKILL");
    await run.exited;

    let w = (web = await startScriptedWeb(model, ws.dir, home.dir));
    let page = await openPage(w);
    await typeInto(page, "Task", "Killed web task");
    await page.waitForFunction(() => document.querySelector("article.tool-card")?.getAttribute("aria-label") === "read_file: done", { polling: 100, timeout: 30_000 });
    await expect.poll(() => model.requests.length, { timeout: 30_000 }).toBe(4);
    const killed = taskIds().find((id) => metadata(id).title === "Killed web task")!;
    expect(metadata(killed).status).toBe("running");
    process.kill(metadata(killed).pid, "SIGKILL"); // cairn web itself dies mid-run
    await w.stop();
    await page.close();

    w = web = await startScriptedWeb(model, ws.dir, home.dir);
    page = await openPage(w);
    const history = 'nav[aria-label="History"]';
    await waitForText(page, "Killed web task", history);
    const listed = await text(page, history);
    expect(listed).toMatch(/Killed web task\s+interrupted/);
    expect(listed).toMatch(/Crashing run task\s+interrupted/);
    expect(listed).not.toContain("running");
    await page.locator(`${history} ::-p-text(Killed web task)`).click();
    await waitForText(page, "interrupted", ".task-header");
    expect(await text(page, ".task-header")).not.toContain("running");
    await page.locator(`${history} ::-p-text(Crashing run task)`).click();
    await page.waitForFunction(() => document.querySelector(".task-header h2")?.textContent === "Crashing run task", { polling: 100, timeout: 30_000 });
    expect(await text(page, ".task-header")).toContain("interrupted");
    await page.close();
  });

  it("a task stored before journals had user messages is shown from its record and carried on", async () => {
    model = await startScriptedModelServer({ turns: [done("Old answer."), done("New answer.")] });
    let w = (web = await startScriptedWeb(model, ws.dir, home.dir));
    let page = await openPage(w);
    await typeInto(page, "Task", "An old task");
    await waitForText(page, "Task completed.", ".timeline");
    await page.close();
    await w.stop();
    // As an older Cairn wrote it: no session_opened, no user_message in its journal.
    const [id] = taskIds();
    const journal = path.join(home.dir, "tasks", id!, "events.jsonl");
    const lines = readFileSync(journal, "utf8").split("\n");
    writeFileSync(journal, lines.filter((l) => !/"type":"(session_opened|user_message)"/.test(l)).join("\n"));
    expect(readFileSync(journal, "utf8")).not.toContain("user_message"); // the record really is the old kind

    w = web = await startScriptedWeb(model, ws.dir, home.dir);
    page = await openPage(w);
    await page.locator('nav[aria-label="History"] ::-p-text(An old task)').click();
    await waitForText(page, "Old answer.", ".timeline");
    expect(await text(page, ".task-header")).toContain("completed");
    await typeInto(page, "Task message", "Go on please");
    await waitForText(page, "New answer.", ".timeline");
    expect(await text(page, ".timeline")).toContain("Go on please");
    expect(JSON.stringify(model.requests[1]!.body)).toContain("An old task");
    await page.close();
  });

  it("new_task asks in the page; agreed, the page follows into the new task, and the history links them", async () => {
    const context = "Goal: say the work is handed over. Done: nothing yet.";
    model = await startScriptedModelServer({ turns: [call("new_task", { context }), done("Finished in the new task.")] });
    const w = (web = await startScriptedWeb(model, ws.dir, home.dir));
    const page = await openPage(w);
    await typeInto(page, "Task", "Pass this job on");
    const start = page.locator('::-p-aria([name="Start the new task"][role="button"])');
    await start.wait();
    expect(await text(page, ".timeline")).toContain(context);
    expect(model.requests).toHaveLength(1); // asked before anything starts
    const first = new URLSearchParams(new URL(page.url()).hash.slice(1)).get("task");
    await start.click();
    // The page follows: the new task is on screen and runs to its end.
    await page.waitForFunction((old) => { const now = new URLSearchParams(location.hash.slice(1)).get("task"); return now !== null && now !== old; }, { polling: 100, timeout: 30_000 }, first);
    await waitForText(page, "Task completed.", ".timeline");
    const second = new URLSearchParams(new URL(page.url()).hash.slice(1)).get("task")!;
    expect(await text(page, ".timeline")).toContain("Finished in the new task.");
    expect(await text(page, ".timeline")).toMatch(/handed over from/i);
    // The new task starts from the context alone.
    const body = JSON.stringify(model.requests[1]!.body);
    expect(body).toContain("say the work is handed over");
    expect(body).not.toContain("Pass this job on");
    expect(metadata(second).parent).toEqual({ id: first, relation: "handoff" });
    // The history links them both ways: the new one names where it came from; the old one's view leads to the new one.
    const history = 'nav[aria-label="History"]';
    await page.waitForFunction((h) => (document.querySelector(h) as HTMLElement).innerText.match(/handed over from Pass this job on/), { polling: 100, timeout: 30_000 }, history);
    await page.locator('nav[aria-label="Open tasks"] ::-p-text(Pass this job on)').click();
    await waitForText(page, "Handed over to a new task", ".timeline");
    await pressButton(page, "Open the new task");
    await page.waitForFunction((id) => new URLSearchParams(location.hash.slice(1)).get("task") === id, { polling: 100, timeout: 30_000 }, second);
    await page.close();
  });

  it("new_task declined with feedback: the work stays in this task and the model reads why", async () => {
    model = await startScriptedModelServer({ turns: [call("new_task", { context: "Goal: go elsewhere." }), done("Stayed here.")] });
    const w = (web = await startScriptedWeb(model, ws.dir, home.dir));
    const page = await openPage(w);
    await typeInto(page, "Task", "Try to hand over");
    await page.locator('::-p-aria([name="Start the new task"][role="button"])').wait();
    await page.locator('::-p-aria([name="Keep working here"][role="textbox"])').fill("Finish it in this task");
    await pressButton(page, "Stay here");
    await waitForText(page, "Task completed.", ".timeline");
    expect(await text(page, ".timeline")).toContain("Stayed here.");
    expect(JSON.stringify(model.requests[1]!.body)).toContain("Finish it in this task");
    expect(taskIds()).toHaveLength(1);
    await page.close();
  });

  it("the focus chain shows in the page as it changes, after a reload, and for a stored task", async () => {
    // The checklist a call carries counts once the call has run: the first shows while the second waits for approval.
    model = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "a.txt", content: "A\n", task_progress: "- [x] Write a.txt\n- [ ] Write b.txt" }),
        call("write_to_file", { path: "b.txt", content: "B\n", task_progress: "- [x] Write a.txt\n- [x] Write b.txt" }),
        done("Wrote both."),
      ],
    });
    let w = (web = await startScriptedWeb(model, ws.dir, home.dir));
    let page = await openPage(w);
    await typeInto(page, "Task", "Write two files");
    await pressButton(page, "Approve");
    const progress = 'section[aria-label="Progress"]';
    await waitForText(page, "1/2", progress);
    const items = () => page.$$eval(`${progress} li`, (all) => all.map((li) => `${(li as HTMLElement).dataset.done === "true" ? "done" : "open"}: ${(li.querySelector(".item-text") as HTMLElement).innerText}`));
    expect(await items()).toEqual(["done: Write a.txt", "open: Write b.txt"]);
    await pressButton(page, "Approve");
    await waitForText(page, "Task completed.", ".timeline");
    await waitForText(page, "2/2", progress);
    expect(await items()).toEqual(["done: Write a.txt", "done: Write b.txt"]);
    await page.reload();
    await waitForText(page, "2/2", progress);
    await page.close();
    await w.stop();

    w = web = await startScriptedWeb(model, ws.dir, home.dir);
    page = await openPage(w);
    await page.locator('nav[aria-label="History"] ::-p-text(Write two files)').click();
    await waitForText(page, "2/2", progress);
    expect(await items()).toEqual(["done: Write a.txt", "done: Write b.txt"]);
    await page.close();
  });

  it("a provider that calls every tool call_0: one card per call, live, after a reload and from the history", async () => {
    model = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "a.txt", content: "A\n" }, "call_0"),
        call("write_to_file", { path: "b.txt", content: "B\n" }, "call_0"),
        call("execute_command", { command: "echo counted", requires_approval: true }, "call_0"),
        call("attempt_completion", { result: "All three done." }, "call_0"),
      ],
    });
    const args = ["--provider", "openai", "--model", "gpt-5", "--base-url", `${model.url}/v1`, "--cwd", ws.dir];
    const env = cleanEnv({ OPENAI_API_KEY: "k", CAIRN_HOME: home.dir });
    let w = (web = await startWeb(args, { env }));
    let page = await openPage(w);
    await typeInto(page, "Task", "Three calls with one id");
    await pressButton(page, "Approve");
    await page.waitForFunction(() => document.querySelectorAll("article.tool-card").length === 2, { polling: 100, timeout: 30_000 });
    await pressButton(page, "Deny");
    await page.waitForFunction(() => document.querySelectorAll("article.tool-card").length === 3, { polling: 100, timeout: 30_000 });
    await pressButton(page, "Approve");
    await waitForText(page, "Task completed.", ".timeline");
    const expected = ["write_to_file: done", "write_to_file: denied", "execute_command: done", "attempt_completion: done"];
    expect(await cards(page)).toEqual(expected);
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("A\n");
    // The provider gets its own ids back, whatever the cards are keyed by.
    expect(JSON.stringify(model.requests[3]!.body)).toContain('"call_0"');
    await page.reload();
    await waitForText(page, "Task completed.", ".timeline");
    expect(await cards(page)).toEqual(expected);
    await page.close();
    await w.stop();

    w = web = await startWeb(args, { env });
    page = await openPage(w);
    await page.locator('nav[aria-label="History"] ::-p-text(Three calls with one id)').click();
    await page.waitForFunction(() => document.querySelectorAll("article.tool-card").length === 4, { polling: 100, timeout: 30_000 });
    expect(await cards(page)).toEqual(expected);
    await page.close();
  });
});
