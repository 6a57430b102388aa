import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, repoRoot, runCairn, tempDir } from "../support/cairn-cli.js";
import { conversationRouter } from "../support/conversation-router.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// The page's history, in real Chromium: this workspace's tasks by default, "All workspaces" for the
// rest, each task's sub-agents and hand-offs under it (folded away on request), what each cost.
const browser = useChromium();
const screenshotDir = process.env.UPDATE_SCREENSHOTS === "1" ? path.join(repoRoot, "docs/web") : undefined;
let ws: ReturnType<typeof tempDir>;
let other: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer | undefined;
let web: WebRun | undefined;

beforeEach(() => {
  ws = tempDir("history-web-ws");
  other = tempDir("history-web-other");
  home = tempDir("history-web-home");
  writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  model = undefined;
  for (const dir of [ws, other, home]) dir.cleanup();
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], usage: { input_tokens: 1000, output_tokens: 100 } });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir });
const history = 'nav[aria-label="History"]';
/** The history's rows as their text, in order, each with how deep it is listed. */
const rows = (page: Page) => page.$$eval(`${history} li`, (all) => all.map((li) => ({ text: (li as HTMLElement).innerText.replace(/\s+/g, " "), child: li.classList.contains("history-child") })));
const waitForText = (page: Page, wanted: string, present = true) =>
  page.waitForFunction((s, t, p) => (document.querySelector(s) as HTMLElement | null)?.innerText.includes(t) === p, { timeout: 30_000, polling: 100 }, history, wanted, present);

describe("cairn web's history", { timeout: 120_000 }, () => {
  it("lists this workspace's tasks, sub-agents and hand-offs under their task, each finished one's cost; All workspaces shows the rest", async () => {
    const router = conversationRouter({
      "HANDING-OVER": [call("new_task", { context: "TAKEN-OVER: finish the job" })],
      "TAKEN-OVER": [call("attempt_completion", { result: "finished" })],
      "WITH-HELPERS": [call("use_subagents", { prompts: ["HELPER-ONE: look around"] }), call("attempt_completion", { result: "helped" })],
      "HELPER-ONE": [call("attempt_completion", { result: "one" })],
      "ELSEWHERE": [call("attempt_completion", { result: "far away" })],
    });
    model = await startScriptedModelServer({ responder: router.responder });
    for (const [cwd, args] of [
      [ws.dir, ["HANDING-OVER: start the job"]],
      [ws.dir, ["--auto-approve", "read", "WITH-HELPERS: research"]],
      [other.dir, ["--model", "unpriced-model-x", "ELSEWHERE: a task in another folder"]],
    ] as const) {
      const done = await runCairn(["run", "--provider", "anthropic", "--base-url", model.url, "--cwd", cwd, "--json", ...args], { env: env() });
      expect(done.code, done.stderr).toBe(0);
    }

    web = await startScriptedWeb(model, ws.dir, home.dir);
    const page = await browser().newPage();
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(web.url);
    await waitForText(page, "TAKEN-OVER");
    const listed = await rows(page);
    expect(listed.map((r) => r.text).join("\n")).not.toContain("ELSEWHERE");
    const at = (title: string) => listed.findIndex((r) => r.text.includes(title));
    // Each child right after its task, marked as one, saying what it is to it.
    expect(at("HELPER-ONE")).toBe(at("WITH-HELPERS") + 1);
    expect(listed[at("HELPER-ONE")]).toMatchObject({ child: true });
    expect(listed[at("HELPER-ONE")]!.text).toContain("sub-agent of WITH-HELPERS: research");
    expect(at("TAKEN-OVER")).toBe(at("HANDING-OVER") + 1);
    expect(listed[at("TAKEN-OVER")]!.text).toContain("handed over from HANDING-OVER: start the job");
    expect(listed[at("HANDING-OVER")]).toMatchObject({ child: false });
    // The one vocabulary, and what each finished task cost.
    for (const row of listed) expect(row.text).toMatch(/completed · .* · \$\d+\.\d+/);

    // Folded away and back.
    await page.locator(`${history} ::-p-aria([name="Hide 1 under it"])`).click();
    await waitForText(page, "HELPER-ONE", false);
    expect(await page.$eval(`${history} button.history-fold[aria-expanded="false"]`, (b) => (b as HTMLElement).innerText)).toBe("Show 1 under it");
    await page.locator(`${history} ::-p-aria([name="Show 1 under it"])`).click();
    await waitForText(page, "HELPER-ONE");

    if (screenshotDir) {
      mkdirSync(screenshotDir, { recursive: true });
      await page.screenshot({ path: path.join(screenshotDir, "history-1400-light.png") as `${string}.png` });
    }

    // Every workspace's: the other folder's task too, with its folder, and its tokens where its price is not known.
    await page.locator(`${history} ::-p-aria([name="All workspaces"][role="checkbox"])`).click();
    await waitForText(page, "ELSEWHERE");
    const all = await rows(page);
    const elsewhere = all.find((r) => r.text.includes("ELSEWHERE"))!;
    expect(elsewhere.text).toContain("1.1k tokens");
    expect(elsewhere.text).toContain(other.dir);
    expect(all).toHaveLength(5);
    if (screenshotDir) {
      for (const [width, scheme] of [[1400, "dark"], [375, "light"], [375, "dark"]] as const) {
        await page.setViewport({ width, height: 900 });
        await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
        await page.screenshot({ path: path.join(screenshotDir, `history-${width}-${scheme}.png`) as `${string}.png`, fullPage: width === 375 });
      }
    }
    await page.close();
  });
});
