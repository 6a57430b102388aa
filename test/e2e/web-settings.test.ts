/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// The Settings view in Debian's Chromium, driven by the names a screen reader reads: what it
// changes is what the next task does, it is kept in settings.json, and it reads on a phone and a
// wide screen, light and dark. With UPDATE_SCREENSHOTS=1 the views are saved for the README (docs/web/).
const screenshotDir = process.env.UPDATE_SCREENSHOTS === "1" ? path.join(repoRoot, "docs/web") : undefined;

const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const call = (name: string, input: Record<string, unknown>, text?: string): ScriptedTurn => ({
  content: [...(text ? [{ type: "text" as const, text }] : []), { type: "tool_use" as const, name, input }],
});
const edit = (from: string, to: string): ScriptedTurn =>
  call("replace_in_file", { path: "greeting.txt", diff: `------- SEARCH\n${from}\n=======\n${to}\n+++++++ REPLACE` }, "I will change the greeting.");
const done = (result: string) => call("attempt_completion", { result });

beforeEach(() => {
  ws = tempDir("web-settings-ws");
  home = tempDir("web-settings-home");
  writeFileSync(path.join(ws.dir, "greeting.txt"), "hello world\n");
  mkdirSync(path.join(ws.dir, ".clinerules"));
  writeFileSync(path.join(ws.dir, ".clinerules", "style.md"), "Always answer in haiku form.\n");
  writeFileSync(path.join(ws.dir, "AGENTS.md"), "Keep lines short.\n");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  ws.cleanup();
  home.cleanup();
});

const settingsFile = () => JSON.parse(readFileSync(path.join(home.dir, "settings.json"), "utf8")) as Record<string, unknown>;
const waitForText = (page: Page, text: string, timeout = 30_000) => page.waitForFunction((t) => document.body.innerText.includes(t), { timeout, polling: 100 }, text);
const checkbox = (page: Page, name: string) => page.locator(`::-p-aria([name="${name}"][role="checkbox"])`);
const isChecked = (page: Page, label: string) =>
  page.evaluate((l) => [...document.querySelectorAll<HTMLLabelElement>(".settings-view label")].find((el) => el.textContent?.trim() === l)?.querySelector("input")?.checked, label);

async function openSettings(page: Page): Promise<void> {
  await page.locator('::-p-aria([name="Settings"][role="button"])').click();
  await checkbox(page, "Edit").wait();
}

/** Clicks a checkbox and waits until the server has saved it (the view then shows what is saved). */
async function toggle(page: Page, label: string, want: boolean): Promise<void> {
  await checkbox(page, label).click();
  await page.waitForFunction((l, w) => {
    const input = [...document.querySelectorAll<HTMLLabelElement>(".settings-view label")].find((el) => el.textContent?.trim() === l)?.querySelector("input");
    return input?.checked === w && !input.disabled && document.querySelector(".settings-saved")?.textContent?.includes("applies from the next task");
  }, { polling: 100, timeout: 30_000 }, label, want);
}

async function closeSettings(page: Page): Promise<void> {
  await page.locator('::-p-aria([name="Close"][role="button"])').click();
  await page.waitForFunction(() => !document.querySelector("dialog.settings-view"), { polling: 100, timeout: 10_000 });
}

async function typeTask(page: Page, text: string): Promise<void> {
  await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

/** The system prompt (and whole body) of the first request that carries `text`. */
const requestWith = (text: string) => JSON.stringify(model.requests.find((r) => JSON.stringify(r.body).includes(text))?.body ?? "");

describe("cairn web's Settings view", { timeout: 120_000 }, () => {
  it("Auto-approve Edit decides whether the next task's edit asks; it survives a reload in settings.json; a rules file switched off leaves the next request", async () => {
    model = await startScriptedModelServer({ turns: [edit("hello world", "hello web"), done("Greeting changed."), edit("hello web", "hello again"), done("Changed again.")] });
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const page = await browser().newPage();
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(web.url);

    await openSettings(page);
    expect(await isChecked(page, "Edit")).toBe(false);
    expect(await isChecked(page, "Read")).toBe(true);
    // cairn web's own --provider wins over the file for its tasks, and the view says so.
    await waitForText(page, "provider is set by this session's flags");
    await toggle(page, "Edit", true);
    expect(settingsFile().autoApprove).toEqual(["read", "edit"]);
    await closeSettings(page);

    // Edit on: the edit runs without an Approve button ever being needed.
    await typeTask(page, "Change the greeting to hello web");
    await waitForText(page, "Task completed.");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello web\n");
    expect(await page.$('::-p-aria([name="Approve"][role="button"])')).toBeNull();
    expect(requestWith("Change the greeting to hello web")).toContain("Always answer in haiku form.");

    // After a reload the view shows what settings.json holds.
    await page.reload();
    await openSettings(page);
    expect(await isChecked(page, "Edit")).toBe(true);
    expect(await isChecked(page, ".clinerules/style.md")).toBe(true);
    await toggle(page, "Edit", false);
    await toggle(page, ".clinerules/style.md", false);
    expect(settingsFile().autoApprove).toEqual(["read"]);
    expect(settingsFile().rulesOff).toEqual([path.join(ws.dir, ".clinerules", "style.md")]);

    // A value settings.json would refuse is one line naming the key, and nothing is saved.
    const before = readFileSync(path.join(home.dir, "settings.json"), "utf8");
    await page.locator('::-p-aria([name="Max requests per task"])').fill("-5");
    await page.locator('::-p-aria([name="Set limit"][role="button"])').click();
    const alert = await page.waitForSelector(".settings-view [role=alert]", { timeout: 30_000 });
    const message = await alert!.evaluate((el) => (el as HTMLElement).innerText);
    expect(message).toContain('"maxTurns"');
    expect(message).not.toContain("\n");
    expect(readFileSync(path.join(home.dir, "settings.json"), "utf8")).toBe(before);
    await page.locator('::-p-aria([name="Max requests per task"])').fill("30");
    await page.locator('::-p-aria([name="Set limit"][role="button"])').click();
    await page.waitForFunction(() => !document.querySelector(".settings-view [role=alert]"), { polling: 100, timeout: 30_000 });
    expect(settingsFile().maxTurns).toBe(30);
    await closeSettings(page);

    // Edit off: the next task asks before it edits, and its request has no switched-off rule.
    await page.locator('::-p-aria([name="New task"][role="button"])').click();
    await typeTask(page, "Change the greeting to hello again");
    await page.locator('::-p-aria([name="Approve"][role="button"])').wait();
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello web\n");
    const second = requestWith("Change the greeting to hello again");
    expect(second).toContain("Keep lines short.");
    expect(second).not.toContain("haiku");
    await page.locator('::-p-aria([name="Approve"][role="button"])').click();
    await waitForText(page, "Changed again.");
    expect(readFileSync(path.join(ws.dir, "greeting.txt"), "utf8")).toBe("hello again\n");
    await page.close();
  });

  it("reads at 1400 px and 375 px, light and dark: nothing to scroll sideways, every control in view; an MCP server is switched and restarted", async () => {
    const memory = path.join(repoRoot, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    writeFileSync(path.join(home.dir, "mcp_settings.json"), JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: path.join(ws.dir, "memory.jsonl") } } } }));
    model = await startScriptedModelServer({ turns: [] });
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const page = await browser().newPage();
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(web.url);
    await openSettings(page);

    await page.locator('::-p-aria([name="Restart memory"][role="button"])').click();
    await waitForText(page, "read_graph");
    await toggle(page, "memory", false);
    expect(JSON.parse(readFileSync(path.join(home.dir, "mcp_settings.json"), "utf8")).mcpServers.memory).toMatchObject({ disabled: true, args: [memory] });
    await toggle(page, "memory", true);

    for (const width of [1400, 375]) {
      await page.setViewport({ width, height: 900 });
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
        const layout = await page.evaluate(() => {
          const dialog = document.querySelector("dialog.settings-view")!;
          const controls = [...dialog.querySelectorAll("input, select, button")].map((el) => {
            const box = el.getBoundingClientRect();
            return { name: (el as HTMLInputElement).name || el.closest("label")?.textContent?.trim() || el.getAttribute("aria-label") || el.textContent?.trim() || el.id, left: box.left, right: box.right, width: box.width };
          });
          return {
            page: document.documentElement.scrollWidth,
            dialog: { scroll: dialog.scrollWidth, client: dialog.clientWidth },
            controls,
            background: getComputedStyle(dialog).backgroundColor,
          };
        });
        expect(layout.page, `${width} ${scheme}`).toBeLessThanOrEqual(width);
        expect(layout.dialog.scroll, `${width} ${scheme}`).toBeLessThanOrEqual(layout.dialog.client);
        for (const control of layout.controls) {
          expect(control.width, `${control.name} at ${width} ${scheme}`).toBeGreaterThan(0);
          expect(control.left, `${control.name} at ${width} ${scheme}`).toBeGreaterThanOrEqual(0);
          expect(control.right, `${control.name} at ${width} ${scheme}`).toBeLessThanOrEqual(width);
        }
        expect(layout.background).toBe(scheme === "light" ? "rgb(255, 255, 255)" : "rgb(13, 17, 23)");
        if (screenshotDir) {
          mkdirSync(screenshotDir, { recursive: true });
          await page.screenshot({ path: path.join(screenshotDir, `settings-${width}-${scheme}.png`) as `${string}.png` });
        }
      }
    }
    await page.close();
  });
});
