/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// How the page reads: at 375 px, with the keyboard alone, in light and dark. With
// UPDATE_SCREENSHOTS=1 the views are saved for the README (docs/web/).
const screenshotDir = process.env.UPDATE_SCREENSHOTS === "1" ? path.join(repoRoot, "docs/web") : undefined;

const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const call = (name: string, input: Record<string, unknown>, text?: string): ScriptedTurn => ({
  content: [...(text ? [{ type: "text" as const, text }] : []), { type: "tool_use" as const, name, input }],
});
const editTurns = (): ScriptedTurn[] => [
  call(
    "replace_in_file",
    { path: "src/greet.ts", diff: '------- SEARCH\nexport const greeting = "hello world";\n=======\nexport const greeting = "hello web";\n+++++++ REPLACE' },
    "The greeting lives in src/greet.ts; I will change it there.",
  ),
  call("attempt_completion", { result: "src/greet.ts now greets the web." }),
];

beforeEach(async () => {
  ws = tempDir("web-layout-ws");
  home = tempDir("web-layout-home");
  mkdirSync(path.join(ws.dir, "src"));
  writeFileSync(path.join(ws.dir, "src/greet.ts"), 'export const greeting = "hello world";\nexport const shout = (s: string) => s.toUpperCase();\n');
  model = await startScriptedModelServer({ turns: editTurns() });
  web = await startScriptedWeb(model, ws.dir, home.dir);
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model.close();
  ws.cleanup();
  home.cleanup();
});

async function shoot(page: Page, name: string): Promise<void> {
  if (!screenshotDir) return;
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`) as `${string}.png`, fullPage: true });
}

/** WCAG contrast ratio of an element's text against the page background. */
const contrastOf = (page: Page, selector: string) =>
  page.$eval(selector, (el) => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const lum = (c: string) => {
      const [r, g, b] = rgb(c).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const fg = lum(getComputedStyle(el).color);
    const bg = lum(getComputedStyle(document.body).backgroundColor);
    return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
  });

/** Presses Tab until the focused element passes the test (a person with only a keyboard). */
async function tabTo(page: Page, test: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(test)) return;
  }
  throw new Error(`Tab never reached: ${test}`);
}

describe("cairn web's page: small screens, keyboard, themes", { timeout: 90_000 }, () => {
  it("at 375 px wide, with the keyboard alone: a task typed, its diff read, approved, done", async () => {
    const page = await browser().newPage();
    await page.setViewport({ width: 375, height: 800 });
    await page.goto(web!.url);
    await tabTo(page, `document.activeElement?.getAttribute("aria-label") === "Task"`);
    await page.keyboard.type("Make the greeting say hello web");
    await page.keyboard.press("Enter");
    await page.locator('::-p-aria([name="Approve"][role="button"])').wait();
    await shoot(page, "approval-375px");
    expect(await page.$eval(".diff-split", (t) => getComputedStyle(t).display)).toBe("none"); // unified on a phone
    // Nothing sideways to scroll at 375 px (a long diff line scrolls inside its own box).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const approveBox = await page.$eval(".approve", (b) => b.getBoundingClientRect().toJSON() as DOMRect);
    expect(approveBox.right).toBeLessThanOrEqual(375);
    await tabTo(page, `document.activeElement?.textContent === "Approve"`);
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.body.innerText.includes("Task completed."), { polling: 100, timeout: 30_000 });
    expect(readFileSync(path.join(ws.dir, "src/greet.ts"), "utf8")).toContain('"hello web"');
    await page.close();
  });

  it("light and dark themes keep text readable (contrast at least 4.5:1), and the view the README shows", async () => {
    const page = await browser().newPage();
    await page.setViewport({ width: 1200, height: 820 });
    await page.goto(web!.url);
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.type("Make the greeting say hello web");
    await page.keyboard.press("Enter");
    await page.locator('::-p-aria([name="Approve"][role="button"])').wait();
    expect(await page.$eval(".diff-split", (t) => getComputedStyle(t).display)).toBe("table"); // side by side when wide
    expect(await page.$eval(".diff-split", (t) => (t as HTMLElement).innerText)).toMatch(/hello world.*hello web/);
    const backgrounds: string[] = [];
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      backgrounds.push(await page.evaluate(() => getComputedStyle(document.body).backgroundColor));
      for (const selector of [".msg.assistant", ".tool-summary", ".status-bar .muted", ".diff-add", ".diff-del"]) {
        expect(await contrastOf(page, selector), `${scheme} ${selector}`).toBeGreaterThanOrEqual(4.5);
      }
      await shoot(page, `approval-${scheme}`);
    }
    expect(backgrounds[0]).not.toBe(backgrounds[1]);
    // The person's own choice wins over the system's.
    await page.select('select[aria-label="Theme"]', "light");
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(backgrounds[0]);
    await page.locator('::-p-aria([name="Approve"][role="button"])').click();
    await page.waitForFunction(() => document.body.innerText.includes("Task completed."), { polling: 100, timeout: 30_000 });
    await page.close();
  });
});
