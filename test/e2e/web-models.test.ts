/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { startScriptedWeb, startWeb, useChromium, type WebRun } from "../support/web-harness.js";

// The model of a new task, picked in the page: the configured one by default, the catalog's on offer.
const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const done = (result: string): ScriptedTurn => ({ content: [{ type: "tool_use", name: "attempt_completion", input: { result } }] });

beforeEach(async () => {
  ws = tempDir("web-models-ws");
  home = tempDir("web-models-home");
  model = await startScriptedModelServer({ turns: [done("Done on the picked model.")] });
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model.close();
  ws.cleanup();
  home.cleanup();
});

const storedTasks = () => (existsSync(path.join(home.dir, "tasks")) ? readdirSync(path.join(home.dir, "tasks")).filter((n) => n !== "index.json") : []);
const picker = (page: Page, name: "Provider" | "Model") => page.locator(`::-p-aria([name="${name}"][role="combobox"])`).waitHandle();
const optionsOf = (page: Page, name: "Provider" | "Model") =>
  page.$$eval(".model-picker select", (all, n) => [...(all[n === "Provider" ? 0 : 1] as HTMLSelectElement).options].map((o) => o.value), name);
const valueOf = async (page: Page, name: "Provider" | "Model") => (await picker(page, name)).evaluate((s) => (s as HTMLSelectElement).value);
const alertText = (page: Page) => page.$$eval('[role="alert"]', (all) => all.map((a) => a.textContent).join("\n"));

async function openPage(w: WebRun, width = 1200): Promise<Page> {
  const page = await browser().newPage();
  await page.setViewport({ width, height: 820 });
  await page.goto(w.url);
  await picker(page, "Model");
  return page;
}

describe("the model picker of a new task", { timeout: 90_000 }, () => {
  it("starts on the configured model, offers the catalog's, and the chosen one answers: its name in the request and the status bar", async () => {
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const page = await openPage(web);
    expect(await valueOf(page, "Provider")).toBe("anthropic");
    expect(await valueOf(page, "Model")).toBe("claude-sonnet-4-5");
    expect(await optionsOf(page, "Provider")).toEqual(["anthropic", "openai", "openrouter", "deepseek"]);
    expect(await optionsOf(page, "Model")).toEqual(expect.arrayContaining(["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5"]));
    expect(await optionsOf(page, "Model")).not.toContain("gpt-5");
    await (await picker(page, "Model")).select("claude-haiku-4-5");
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.type("Which model are you?");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.body.innerText.includes("Task completed."), { polling: 100, timeout: 30_000 });
    expect((model.requests[0]!.body as { model: string }).model).toBe("claude-haiku-4-5");
    const status = await page.$eval('footer[aria-label="Task status"]', (f) => (f as HTMLElement).innerText);
    expect(status).toMatch(/model\s+claude-haiku-4-5/);
    // The fill is of the window session_opened gave (the status bar has no other source for it).
    expect(status).toMatch(/context\s+\d+%/);
    await page.close();
  });

  it("a model whose key is missing says so in one line when chosen, naming the variable; the task is not started", async () => {
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const page = await openPage(web);
    await (await picker(page, "Provider")).select("openai");
    expect(await valueOf(page, "Model")).toBe("gpt-5");
    await page.waitForFunction(() => document.querySelector(".model-picker [role=alert]"), { polling: 100, timeout: 10_000 });
    expect(await alertText(page)).toBe("No API key for openai: set OPENAI_API_KEY or CAIRN_API_KEY.");
    expect(model.requests).toHaveLength(0);
    // Sending anyway is refused with the same line, and nothing is stored.
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.type("Try anyway");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("[role=alert]").length === 2, { polling: 100, timeout: 10_000 });
    expect(await alertText(page)).toBe("No API key for openai: set OPENAI_API_KEY or CAIRN_API_KEY.\nNo API key for openai: set OPENAI_API_KEY or CAIRN_API_KEY.");
    expect(storedTasks()).toEqual([]);
    // Back to a provider with a key: the line goes, and the same text starts the task.
    await (await picker(page, "Provider")).select("anthropic");
    await page.waitForFunction(() => !document.querySelector(".model-picker [role=alert]"), { polling: 100, timeout: 10_000 });
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.body.innerText.includes("Task completed."), { polling: 100, timeout: 30_000 });
    expect((model.requests[0]!.body as { model: string }).model).toBe("claude-sonnet-4-5");
    expect(storedTasks()).toHaveLength(1);
    await page.close();
  });

  it("a configured model the catalog does not know is offered first, and a key given for another provider counts", async () => {
    web = await startWeb(["--provider", "anthropic", "--base-url", model.url, "--model", "claude-house-build", "--cwd", ws.dir], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", DEEPSEEK_API_KEY: "d", CAIRN_HOME: home.dir }),
    });
    const page = await openPage(web);
    expect((await optionsOf(page, "Model"))[0]).toBe("claude-house-build");
    expect(await valueOf(page, "Model")).toBe("claude-house-build");
    await (await picker(page, "Provider")).select("deepseek");
    await page.waitForFunction(() => document.querySelector(".model-picker")?.textContent?.includes("takes no images"), { polling: 100, timeout: 10_000 });
    expect(await page.$$('[role="alert"]')).toHaveLength(0); // its key is set
    await page.close();
  });

  it("a settings.json broken while the page is open: the picker says so in one line and keeps the person's provider, and shows it again once fixed, without a reload", async () => {
    const settings = path.join(home.dir, "settings.json");
    writeFileSync(settings, JSON.stringify({ provider: "deepseek", model: "deepseek-reasoner" }));
    web = await startWeb(["--cwd", ws.dir], { env: cleanEnv({ ANTHROPIC_API_KEY: "k", DEEPSEEK_API_KEY: "d", CAIRN_HOME: home.dir }) });
    const page = await openPage(web);
    expect(await valueOf(page, "Provider")).toBe("deepseek");
    expect(await valueOf(page, "Model")).toBe("deepseek-reasoner");

    // Broken while the page is open: opening the picker says so and keeps deepseek, not anthropic.
    writeFileSync(settings, '{ "provider": "deepseek", ');
    await (await picker(page, "Provider")).focus();
    await page.waitForFunction(() => document.querySelector(".model-picker [role=alert]")?.textContent?.includes("settings.json"), { polling: 100, timeout: 10_000 });
    expect(await page.$$eval(".model-picker [role=alert]", (all) => all.length)).toBe(1);
    expect(await alertText(page)).not.toContain("\n");
    expect(await valueOf(page, "Provider")).toBe("deepseek");
    expect(await valueOf(page, "Model")).toBe("deepseek-reasoner");

    // Fixed, now with another model: the picker shows it the next time it is opened, and the line goes.
    writeFileSync(settings, JSON.stringify({ provider: "deepseek", model: "deepseek-chat" }));
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await (await picker(page, "Provider")).focus();
    await page.waitForFunction(() => (document.querySelectorAll(".model-picker select")[1] as HTMLSelectElement | undefined)?.value === "deepseek-chat", { polling: 100, timeout: 10_000 });
    await page.waitForFunction(() => !document.querySelector(".model-picker [role=alert]"), { polling: 100, timeout: 10_000 });
    expect(await valueOf(page, "Provider")).toBe("deepseek");
    await page.close();
  });

  it("at 375 px, with the keyboard alone, in light and dark: the picker and the Attach button fit and read", async () => {
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const page = await openPage(web, 375);
    for (let i = 0; i < 20 && (await page.evaluate(() => document.activeElement?.closest(".model-picker") === null)); i++) await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (document.activeElement as HTMLSelectElement).value)).toBe("anthropic");
    await page.keyboard.press("Tab");
    await page.keyboard.press("ArrowDown"); // a closed select changes with the arrows
    expect(await valueOf(page, "Model")).not.toBe("claude-sonnet-4-5");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    for (const selector of [".model-picker select", ".task-input-buttons button"]) {
      const box = await page.$eval(selector, (el) => el.getBoundingClientRect().toJSON() as DOMRect);
      expect(box.right, selector).toBeLessThanOrEqual(375);
    }
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      const contrast = await page.$eval(".model-picker select", (el) => {
        const lum = (c: string) => {
          const [r, g, b] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
            const s = Number(v) / 255;
            return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
        };
        const fg = lum(getComputedStyle(el).color);
        const bg = lum(getComputedStyle(el).backgroundColor);
        return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      });
      expect(contrast, scheme).toBeGreaterThanOrEqual(4.5);
    }
    await page.close();
  });
});
