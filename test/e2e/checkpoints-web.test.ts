/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// Checkpoints in the conversation: each where its step made it, its diff and a restore at hand.
const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const edit = (search: string, replace: string, text: string): ScriptedTurn => ({
  content: [
    { type: "text", text },
    { type: "tool_use", name: "replace_in_file", input: { path: "greeting.txt", diff: `------- SEARCH\n${search}\n=======\n${replace}\n+++++++ REPLACE` } },
  ],
});

beforeEach(() => {
  ws = tempDir("web-cp-ws");
  home = tempDir("web-cp-home");
  writeFileSync(path.join(ws.dir, "greeting.txt"), "hello world\nsecond line\n");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  ws.cleanup();
  home.cleanup();
});

/** The conversation as a person reads it, top to bottom: the marker rows and the calls' cards, one line each. */
const conversation = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll(".timeline > *")]
      .map((el) => (el.classList.contains("checkpoint-marker") ? `marker ${el.querySelector(".checkpoint-head")?.textContent}` : el.matches("article.tool-card") && (el.textContent ?? "").includes("replace_in_file") ? "edit card" : ""))
      .filter((line) => line !== ""),
  );

/**
 * Clicks a marker's control: its row brought to the middle first, out from under the status bar
 * that stays at the page's foot (a control just above it is in view but covered).
 */
async function click(page: Page, checkpoint: number, control: string): Promise<void> {
  const marker = `.timeline [aria-label="Checkpoint ${checkpoint}"]`;
  await page.$eval(marker, (el) => el.scrollIntoView({ block: "center" }));
  await page.locator(`${marker} ${control}`).click();
}

const waitFor = (page: Page, test: string, arg?: unknown) => page.waitForFunction(test, { polling: 100, timeout: 30_000 }, arg);

// A browser, the server and the agent share two busy cores here: generous limits, never timed assertions.
describe("checkpoints in the web page's conversation", { timeout: 120_000 }, () => {
  it("each edit's checkpoint shows after it; Compare shows its diff, Restore files puts the file back, and a reload keeps them", async () => {
    model = await startScriptedModelServer({
      turns: [
        edit("hello world", "hello web", "First the greeting."),
        edit("second line", "second web line", "Then the second line."),
        { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Both lines changed." } }] },
      ],
    });
    web = await startScriptedWeb(model, ws.dir, home.dir, ["--auto-approve", "edit"]);
    const page = await browser().newPage();
    await page.goto(web.url);
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.type("Change both lines");
    await page.keyboard.press("Enter");
    await waitFor(page, "document.body.innerText.includes('Task completed.')");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello web\nsecond web line\n");

    // Numbered as the server numbers them (the task's start is 1), once the list has come.
    await waitFor(page, "document.querySelectorAll('.timeline .checkpoint-marker[aria-label^=\"Checkpoint \"]').length === 2 && !document.querySelector('.timeline .checkpoint-marker[aria-label=\"Checkpoint\"]')");
    expect(await conversation(page)).toEqual([
      "edit card",
      "marker Checkpoint 2 · turn 1: replace_in_file · 1 file changed",
      "edit card",
      "marker Checkpoint 3 · turn 2: replace_in_file · 1 file changed",
    ]);

    // Compare: the second step's own change, as a diff.
    await click(page, 3, '::-p-aria([name="Compare checkpoint 3"])');
    await waitFor(page, "document.querySelector('.timeline [aria-label=\"Checkpoint 3\"] .patch')?.textContent.includes('second web line')");
    const lines = await page.$$eval('.timeline [aria-label="Checkpoint 3"] .patch > div', (rows) => rows.map((r) => `${r.className}|${r.textContent}`));
    expect(lines).toContain("diff-del|-second line");
    expect(lines).toContain("diff-add|+second web line");
    expect(lines.filter((l) => l.startsWith("diff-add") || l.startsWith("diff-del"))).toHaveLength(2); // not the first step's

    // Restore files to the first step's checkpoint: the first version is back on disk.
    await click(page, 2, '::-p-aria([name="Restore… checkpoint 2"])');
    await click(page, 2, '::-p-aria([name="Restore checkpoint 2"]) ::-p-text(Restore files)');
    await waitFor(page, "document.querySelector('.timeline [aria-label=\"Checkpoint 2\"] [role=status]')?.textContent.includes('files restored')");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello web\nsecond line\n");

    // After a reload the markers are where they were, still numbered, with the restore after them.
    await page.reload();
    await waitFor(page, "document.querySelectorAll('.timeline .checkpoint-marker[aria-label^=\"Checkpoint \"]').length === 2 && !document.querySelector('.timeline .checkpoint-marker[aria-label=\"Checkpoint\"]')");
    expect(await conversation(page)).toEqual([
      "edit card",
      "marker Checkpoint 2 · turn 1: replace_in_file · 1 file changed",
      "edit card",
      "marker Checkpoint 3 · turn 2: replace_in_file · 1 file changed",
    ]);
    expect(await page.evaluate(() => (document.querySelector(".timeline") as HTMLElement).innerText)).toMatch(/Went back to the checkpoint/);
    await page.close();
  });
});
