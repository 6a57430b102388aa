/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { goodHeaders, rawRequest, startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// The page in Debian's Chromium, driven like a person would: by the names a screen reader reads.
const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const call = (name: string, input: Record<string, unknown>, text?: string): ScriptedTurn => ({
  content: [...(text ? [{ type: "text" as const, text }] : []), { type: "tool_use" as const, name, input }],
});
const done = (result: string) => call("attempt_completion", { result });

beforeEach(() => {
  ws = tempDir("web-ui-ws");
  home = tempDir("web-ui-home");
  writeFileSync(path.join(ws.dir, "greeting.txt"), "hello world\nsecond line\n");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  ws.cleanup();
  home.cleanup();
});

async function serve(turns: ScriptedTurn[]): Promise<WebRun> {
  model = await startScriptedModelServer({ turns });
  web = await startScriptedWeb(model, ws.dir, home.dir);
  return web;
}

async function openPage(w: WebRun, url = w.url): Promise<Page> {
  const page = await browser().newPage();
  await page.goto(url);
  return page;
}

async function typeTask(page: Page, text: string): Promise<void> {
  const box = page.locator('::-p-aria([name="Task"][role="textbox"])');
  await box.click();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

const bodyText = (page: Page) => page.evaluate(() => document.body.innerText);
const waitForText = (page: Page, text: string, timeout = 30_000) =>
  page.waitForFunction((t) => document.body.innerText.includes(t), { timeout, polling: 100 }, text);

const editTurns = (): ScriptedTurn[] => [
  call("replace_in_file", { path: "greeting.txt", diff: "------- SEARCH\nhello world\n=======\nhello web\n+++++++ REPLACE" }, "I will change the greeting."),
  done("The greeting now says hello web."),
];

// A browser, the server and the agent share two busy cores here: generous limits, never timed assertions.
describe("cairn web in a browser", { timeout: 90_000 }, () => {
  it("a task typed in the page streams its reply and completes", async () => {
    const w = await serve([call("attempt_completion", { result: "All done here." }, "Looking at the workspace now.")]);
    const page = await openPage(w);
    expect(page.url()).toBe(`${w.origin}/`); // the token left the address bar
    await typeTask(page, "Say hello\n");
    await waitForText(page, "Task completed.");
    const text = await bodyText(page);
    expect(text).toContain("Say hello");
    expect(text).toContain("Looking at the workspace now.");
    expect(text).toContain("attempt_completion");
    expect(text).toMatch(/model\s+\S+/);
    expect(JSON.stringify(model.requests[0]!.body)).toContain("Say hello");
    await page.close();
  });

  it("Shift+Enter adds a new line instead of sending", async () => {
    const w = await serve([done("ok")]);
    const page = await openPage(w);
    const box = page.locator('::-p-aria([name="Task"][role="textbox"])');
    await box.click();
    await page.keyboard.type("first line");
    await page.keyboard.down("Shift");
    await page.keyboard.press("Enter");
    await page.keyboard.up("Shift");
    await page.keyboard.type("second line");
    const value = await page.$eval("textarea", (t) => (t as HTMLTextAreaElement).value);
    expect(value).toBe("first line\nsecond line");
    expect(model.requests).toHaveLength(0);
    await page.keyboard.press("Enter");
    await waitForText(page, "Task completed.");
    expect(JSON.stringify(model.requests[0]!.body)).toContain("first line\\nsecond line");
    await page.close();
  });

  it("an edit shows its diff before approval; Approve writes it to disk", async () => {
    const w = await serve(editTurns());
    const page = await openPage(w);
    await typeTask(page, "Change the greeting");
    const approve = page.locator('::-p-aria([name="Approve"][role="button"])');
    await approve.wait();
    const diff = await page.$eval("figure.diff", (f) => (f as HTMLElement).innerText);
    expect(diff).toContain("greeting.txt");
    expect(diff).toMatch(/-\s*hello world/);
    expect(diff).toMatch(/\+\s*hello web/);
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello world\nsecond line\n");
    await approve.click();
    await waitForText(page, "Task completed.");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello web\nsecond line\n");
    await page.close();
  });

  it("Deny leaves the file as it was and tells the model", async () => {
    const w = await serve([editTurns()[0]!, done("Left it as it was.")]);
    const page = await openPage(w);
    await typeTask(page, "Change the greeting");
    await page.locator('::-p-aria([name="Deny"][role="button"])').click();
    await waitForText(page, "Task completed.");
    expect(await bodyText(page)).toContain("denied");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello world\nsecond line\n");
    expect(JSON.stringify(model.requests[1]!.body)).toMatch(/denied/);
    await page.close();
  });

  it("a reload mid-task shows it where it is; closing the page does not stop it; two tabs stay in step", async () => {
    const w = await serve(editTurns());
    const first = await openPage(w);
    await typeTask(first, "Change the greeting");
    await first.locator('::-p-aria([name="Approve"][role="button"])').wait();
    await first.reload();
    await first.locator('::-p-aria([name="Approve"][role="button"])').wait();
    const afterReload = await bodyText(first);
    expect(afterReload.split("I will change the greeting.")).toHaveLength(2); // once: replayed, not doubled
    expect(afterReload).toContain("needs your approval");
    expect(await first.$eval("figure.diff", (f) => (f as HTMLElement).innerText)).toMatch(/\+\s*hello web/);
    await first.close(); // the person closes the browser: the task keeps waiting

    const tabs = [await openPage(w), await openPage(w)];
    for (const tab of tabs) {
      await tab.bringToFront(); // a background tab gets no animation frames, which clicks wait for
      await tab.locator('nav[aria-label="Open tasks"] ::-p-aria([name="Change the greeting"])').click();
      await tab.locator('::-p-aria([name="Approve"][role="button"])').wait();
    }
    expect(model.requests).toHaveLength(1);
    await tabs[0]!.bringToFront();
    await tabs[0]!.locator('::-p-aria([name="Approve"][role="button"])').click();
    await waitForText(tabs[1]!, "Task completed.");
    expect(await bodyText(tabs[1]!)).not.toContain("needs your approval");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello web\nsecond line\n");
    for (const tab of tabs) await tab.close();
  });

  it("a question is answered by picking one of its choices, and the model gets the answer", async () => {
    const w = await serve([
      call("ask_followup_question", { question: "Which greeting should it use?", options: ["hello web", "hi there"] }),
      done("Used the greeting you picked."),
    ]);
    const page = await openPage(w);
    await typeTask(page, "Pick a greeting");
    await page.locator('::-p-aria([name="hi there"][role="button"])').click();
    await waitForText(page, "Task completed.");
    expect(await bodyText(page)).toContain("You answered: hi there");
    expect(JSON.stringify(model.requests[1]!.body)).toContain("hi there");
    await page.close();
  });

  it("a plan from Plan mode is approved in the page, and the task goes on in Act", async () => {
    const w = await serve([call("plan_mode_respond", { response: "1. Change the greeting to hello web." }), editTurns()[0]!, done("Changed.")]);
    const page = await openPage(w);
    await page.locator('::-p-aria([name="Plan"][role="radio"])').click();
    await typeTask(page, "Plan the greeting change");
    await page.locator('::-p-aria([name="Approve plan"][role="button"])').click();
    await page.locator('::-p-aria([name="Approve"][role="button"])').click();
    await waitForText(page, "Task completed.");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello web\nsecond line\n");
    await page.close();
  });

  it("several tasks run at once, each in its own tab; the history lists a finished one", async () => {
    const w = await serve([editTurns()[0]!, done("Second task done."), done("First task done.")]);
    const page = await openPage(w);
    await typeTask(page, "Change the greeting");
    await page.locator('::-p-aria([name="Approve"][role="button"])').wait();
    // While the first waits for approval, a second task starts and finishes.
    await page.locator('nav[aria-label="Open tasks"] ::-p-aria([name="New task"])').click();
    await typeTask(page, "Second task");
    await waitForText(page, "Task completed.");
    await page.locator('nav[aria-label="Open tasks"] ::-p-aria([name="Change the greeting"])').click();
    await page.locator('::-p-aria([name="Approve"][role="button"])').click();
    await waitForText(page, "Task completed.");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello web\nsecond line\n");
    // The history lists both as stored, finished tasks.
    const history = page.locator('nav[aria-label="History"]');
    await history.wait();
    await page.waitForFunction(() => (document.querySelector('nav[aria-label="History"]') as HTMLElement).innerText.includes("Second task"), { polling: 100, timeout: 10_000 });
    const listed = await page.$eval('nav[aria-label="History"]', (n) => (n as HTMLElement).innerText);
    expect(listed).toContain("Change the greeting");
    expect(listed).toMatch(/Second task\s+completed/);
    await page.close();
  });

  it("a stored task is found in the history by search and carried on from the page", async () => {
    let w = await serve([done("First answer."), done("Second answer.")]);
    let page = await openPage(w);
    await typeTask(page, "Remember the word heron");
    await waitForText(page, "Task completed.");
    await page.close();
    await w.stop();
    // A new server on the same CAIRN_HOME: the task is stored, not running here.
    web = await startScriptedWeb(model, ws.dir, home.dir);
    w = web;
    page = await openPage(w);
    await page.locator('::-p-aria([name="Search history"])').fill("heron");
    await page.locator('nav[aria-label="History"] button').click();
    // Before it is carried on, the stored task shows what it did.
    await waitForText(page, "First answer.");
    expect(await page.$eval(".task-header", (n) => (n as HTMLElement).innerText)).toMatch(/ · 1 turn · /);
    expect(model.requests).toHaveLength(1);
    await page.locator('::-p-aria([name="Task message"][role="textbox"])').click();
    await page.keyboard.type("Now say it again");
    await page.keyboard.press("Enter");
    await waitForText(page, "Now say it again");
    // The stored run shows its result again; the new run adds a second one.
    await page.waitForFunction(() => (document.querySelector(".timeline") as HTMLElement).innerText.split("Task completed.").length === 3, { polling: 100, timeout: 30_000 });
    expect(await bodyText(page)).toContain("First answer.");
    const second = JSON.stringify(model.requests[1]!.body);
    expect(second).toContain("Remember the word heron");
    expect(second).toContain("Now say it again");
    await page.close();
  });

  it("the checkpoint timeline shows a step's changes and restores the files from before it", async () => {
    const w = await serve(editTurns());
    const page = await openPage(w);
    await typeTask(page, "Change the greeting");
    await page.locator('::-p-aria([name="Approve"][role="button"])').click();
    await waitForText(page, "Task completed.");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello web\nsecond line\n");
    await page.locator("summary ::-p-text(Checkpoints)").click();
    // The step of the edit is listed under the call that made it.
    const edit = await page.waitForFunction(
      () => [...document.querySelectorAll(".step")].find((step) => step.textContent?.includes("replace_in_file"))?.querySelector(".step-number")?.textContent,
      { polling: 100, timeout: 30_000 },
    );
    const last = Number(await edit.jsonValue());
    // The edit's step shows what it changed.
    await page.locator(`.timeline-panel ::-p-aria([name="Compare checkpoint ${last}"])`).click();
    await page.waitForFunction(() => document.querySelector(".timeline-panel .patch")?.textContent?.includes("+hello web"), { polling: 100, timeout: 30_000 });
    expect(await page.$eval(".timeline-panel .patch", (p) => p.textContent)).toContain("-hello world");
    // Back to the first checkpoint, files only: the greeting is as it was, the edit is undoable.
    await page.locator('.timeline-panel ::-p-aria([name="Restore… checkpoint 1"])').click();
    await page.locator('.timeline-panel ::-p-aria([name="Restore checkpoint 1"]) ::-p-text(Restore files)').click();
    await waitForText(page, "Checkpoint 1: files restored");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello world\nsecond line\n");
    await page.close();
  });

  it("Always allow for this task: the next call the rule covers runs without asking, and its card still shows its diff", async () => {
    writeFileSync(path.join(ws.dir, "b.txt"), "old b\n");
    const w = await serve([
      call("write_to_file", { path: "a.txt", content: "A\n" }),
      call("write_to_file", { path: "b.txt", content: "B\n" }),
      done("Wrote both."),
    ]);
    const page = await openPage(w);
    await typeTask(page, "Write two files");
    await page.locator('::-p-aria([name="Approve"][role="button"])').wait();
    expect(await bodyText(page)).toContain("write_to_file(**)");
    await page.locator('::-p-aria([name="Always allow"][role="button"])').click();
    await waitForText(page, "Task completed.");
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("A\n");
    expect(readFileSync(path.join(ws.dir, "b.txt"), "utf8")).toBe("B\n");
    // Asked once (the first call); the second ran on the rule. The server's stream says so.
    const stream = await rawRequest(w, { path: "/api/events", headers: goodHeaders(w), readMs: 500 });
    const updates = stream.body
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => (JSON.parse(l.slice(6)) as { event: { type: string; status?: string; decision?: { by: string } } }).event)
      .filter((e) => e.type === "tool_call_update");
    expect(updates.filter((e) => e.status === "awaiting_approval")).toHaveLength(1);
    expect(updates.filter((e) => e.status === "running").map((e) => e.decision?.by)).toEqual(["user", "rule", undefined]);
    // The call nobody was asked about shows the diff core computed before it ran: the old text it replaced, too.
    const cards = await page.$$eval("article.tool-card", (all) => all.map((a) => a.textContent ?? ""));
    const second = cards.find((text) => text.includes("write b.txt"));
    expect(second).toContain("old b");
    await page.close();
  });

  it("a finished task is deleted from the history (asked twice), from disk and from the open tabs", async () => {
    const w = await serve([done("Done once.")]);
    const page = await openPage(w);
    await typeTask(page, "A task to delete");
    await waitForText(page, "Task completed.");
    const tasks = path.join(home.dir, "tasks");
    const [id] = readdirSync(tasks).filter((name) => name !== "index.json");
    expect(id).toBeDefined();
    await page.locator('::-p-aria([name="Delete A task to delete"])').click();
    expect(existsSync(path.join(tasks, id!))).toBe(true); // one click only asks
    await page.locator('::-p-aria([name="Delete for good: A task to delete"])').click();
    await page.waitForFunction(() => !document.querySelector('nav[aria-label="History"]')?.textContent?.includes("A task to delete"), { polling: 100, timeout: 30_000 });
    expect(existsSync(path.join(tasks, id!))).toBe(false);
    expect(await page.$eval('nav[aria-label="Open tasks"]', (n) => n.textContent)).not.toContain("A task to delete");
    await page.close();
  });

  it("@ completes a workspace path and / a command; the mentioned file reaches the model", async () => {
    const w = await serve([done("Read it.")]);
    const page = await openPage(w);
    const box = page.locator('::-p-aria([name="Task"][role="textbox"])');
    await box.click();
    await page.keyboard.type("/new");
    await page.locator('::-p-aria([role="option"]) ::-p-text(/newtask)').wait();
    await page.keyboard.press("Escape");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("Summarise @gre");
    await page.locator('::-p-aria([role="option"]) ::-p-text(greeting.txt)').wait();
    await page.keyboard.press("Tab");
    expect(await page.$eval("textarea", (t) => (t as HTMLTextAreaElement).value)).toBe("Summarise @/greeting.txt ");
    expect(model.requests).toHaveLength(0); // taking a suggestion does not send
    await page.keyboard.press("Enter");
    await waitForText(page, "Task completed.");
    expect(JSON.stringify(model.requests[0]!.body)).toContain("hello world");
    await page.close();
  });

  it("the Plan/Act switch of a task applies to its next run", async () => {
    const w = await serve([done("First."), call("plan_mode_respond", { response: "1. Read the code." })]);
    const page = await openPage(w);
    await typeTask(page, "Start in act");
    await waitForText(page, "Task completed.");
    await page.locator('::-p-aria([name="Plan"][role="radio"])').click();
    await waitForText(page, "Plan mode:");
    await page.locator('::-p-aria([name="Task message"][role="textbox"])').click();
    await page.keyboard.type("Now plan");
    await page.keyboard.press("Enter");
    await page.locator('::-p-aria([name="Approve plan"][role="button"])').wait();
    expect(model.requests).toHaveLength(2);
    const tools = (i: number) => (model.requests[i]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(tools(0)).toContain("write_to_file"); // act offers edits
    expect(tools(1)).not.toContain("write_to_file"); // plan does not
    await page.close();
  });

  it("a command shows what it will run before approval, then its output live while it runs", async () => {
    const command = "for i in 1 2 3; do echo line-$i; sleep 1; done";
    const w = await serve([call("execute_command", { command, requires_approval: true }), done("Counted.")]);
    const page = await openPage(w);
    await typeTask(page, "Count to three");
    await page.locator('::-p-aria([name="Approve"][role="button"])').wait();
    expect(await page.$eval(".command-preview", (p) => p.textContent)).toContain(`$ ${command}`);
    await page.locator('::-p-aria([name="Approve"][role="button"])').click();
    // line-1 shows while the card still says running: the output is live, not at the end.
    await page.waitForFunction(
      () => [...document.querySelectorAll(".tool-card")].some((c) => c.getAttribute("aria-label") === "execute_command: running" && c.querySelector(".tool-output")?.textContent?.includes("line-1")),
      { polling: 50, timeout: 30_000 },
    );
    await waitForText(page, "Task completed.");
    expect(await page.$eval(".tool-output", (p) => p.textContent)).toMatch(/line-1\s+line-2\s+line-3/);
    await page.close();
  });

  it("Stop ends a run at once; the next message tells the model it was stopped", async () => {
    const w = await serve([call("execute_command", { command: "sleep 60", requires_approval: true }), done("Carried on.")]);
    const page = await openPage(w);
    await typeTask(page, "Wait a long time");
    await page.locator('::-p-aria([name="Approve"][role="button"])').click();
    await page.locator('::-p-aria([name="Stop"][role="button"])').click();
    await waitForText(page, "Stopped.");
    await page.locator('::-p-aria([name="Task message"][role="textbox"])').click();
    await page.keyboard.type("Go on without waiting");
    await page.keyboard.press("Enter");
    await waitForText(page, "Task completed.");
    const last = JSON.stringify(model.requests.at(-1)!.body);
    expect(last).toContain("stopped by the user");
    expect(last).toContain("Go on without waiting");
    await page.close();
  });
});
