/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// Checkpoints in the conversation: each where its step made it, its diff and a restore at hand.
const repoRoot = path.resolve(import.meta.dirname, "../..");
const screenshotDir = process.env.UPDATE_SCREENSHOTS === "1" ? path.join(repoRoot, "docs/web") : undefined;
const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const edit = (search: string, replace: string, text: string): ScriptedTurn => ({
  content: [
    { type: "text", text },
    { type: "tool_use", name: "replace_in_file", input: { path: "greeting.ts", diff: `------- SEARCH\n${search}\n=======\n${replace}\n+++++++ REPLACE` } },
  ],
});

const v1 = 'const greeting = "hello world";\nconst second = "second line";\n';

beforeEach(() => {
  ws = tempDir("web-cp-ws");
  home = tempDir("web-cp-home");
  writeFileSync(path.join(ws.dir, "greeting.ts"), v1);
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  ws.cleanup();
  home.cleanup();
});

/** The conversation as a person reads it, top to bottom: the model's words, the edits' cards and the marker rows, one line each. */
const conversation = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll(".timeline > *")]
      .map((el) =>
        el.classList.contains("checkpoint-marker")
          ? `marker ${el.querySelector(".checkpoint-head")?.textContent}`
          : el.matches("article.tool-card") && (el.textContent ?? "").includes("replace_in_file")
            ? "edit card"
            : el.matches(".msg.assistant")
              ? `says ${(el.textContent ?? "").trim()}`
              : "",
      )
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
        edit('const greeting = "hello world";', 'const greeting = "hello web";', "First the greeting."),
        edit('const second = "second line";', 'const second = "second web line";', "Then the second line."),
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
    expect(readFileSync(path.join(ws.dir, "greeting.ts"), "utf8")).toBe(v1.replace("hello world", "hello web").replace("second line", "second web line"));

    // Numbered as the server numbers them (the task's start is 1), once the list has come.
    await waitFor(page, "document.querySelectorAll('.timeline .checkpoint-marker[aria-label^=\"Checkpoint \"]').length === 2 && !document.querySelector('.timeline .checkpoint-marker[aria-label=\"Checkpoint\"]')");
    expect((await conversation(page)).filter((line) => line !== "says ")).toEqual([
      "says First the greeting.",
      "edit card",
      "marker Checkpoint 2 · turn 1: replace_in_file · 1 file changed",
      "says Then the second line.",
      "edit card",
      "marker Checkpoint 3 · turn 2: replace_in_file · 1 file changed",
    ]);

    // Compare: the second step's own change, as a diff.
    await click(page, 3, '::-p-aria([name="Compare checkpoint 3"])');
    await waitFor(page, "document.querySelector('.timeline [aria-label=\"Checkpoint 3\"] .patch')?.textContent.includes('second web line')");
    const lines = await page.$$eval('.timeline [aria-label="Checkpoint 3"] .patch > div', (rows) => rows.map((r) => `${r.className}|${r.textContent}`));
    expect(lines).toContain('diff-del|-const second = "second line";');
    expect(lines).toContain('diff-add|+const second = "second web line";');
    expect(lines.filter((l) => l.startsWith("diff-add") || l.startsWith("diff-del"))).toHaveLength(2); // not the first step's
    // Code coloured for its language, in the diff's own colours.
    expect(await page.$eval('.timeline [aria-label="Checkpoint 3"] .patch .diff-add', (row) => row.querySelector(".hljs-keyword")?.textContent)).toBe("const");
    await page.setViewport({ width: 1400, height: 900 });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      if (screenshotDir) {
        mkdirSync(screenshotDir, { recursive: true });
        await page.screenshot({ path: path.join(screenshotDir, `checkpoints-${scheme}.png`) as `${string}.png`, fullPage: true });
      }
    }
    // On a phone the page does not scroll sideways: the diff scrolls in its own box.
    await page.setViewport({ width: 375, height: 800 });
    await waitFor(page, "document.documentElement.scrollWidth <= 375");
    if (screenshotDir) await page.screenshot({ path: path.join(screenshotDir, "checkpoints-375px.png") as `${string}.png`, fullPage: true });
    await page.setViewport({ width: 800, height: 600 });

    // Restore files to the first step's checkpoint: the first version is back on disk.
    await click(page, 2, '::-p-aria([name="Restore… checkpoint 2"])');
    await click(page, 2, '::-p-aria([name="Restore checkpoint 2"]) ::-p-text(Restore files)');
    await waitFor(page, "document.querySelector('.timeline [aria-label=\"Checkpoint 2\"] [role=status]')?.textContent.includes('files restored')");
    expect(readFileSync(path.join(ws.dir, "greeting.ts"), "utf8")).toBe(v1.replace("hello world", "hello web"));

    // After a reload the markers are where they were, still numbered, with the restore after them.
    await page.reload();
    await waitFor(page, "document.querySelectorAll('.timeline .checkpoint-marker[aria-label^=\"Checkpoint \"]').length === 2 && !document.querySelector('.timeline .checkpoint-marker[aria-label=\"Checkpoint\"]')");
    expect((await conversation(page)).filter((line) => line !== "says ")).toEqual([
      "says First the greeting.",
      "edit card",
      "marker Checkpoint 2 · turn 1: replace_in_file · 1 file changed",
      "says Then the second line.",
      "edit card",
      "marker Checkpoint 3 · turn 2: replace_in_file · 1 file changed",
    ]);
    expect(await page.evaluate(() => (document.querySelector(".timeline") as HTMLElement).innerText)).toContain("Went back to checkpoint 2 “turn 1: replace_in_file”: the files restored.");
    await page.close();
  });
});
