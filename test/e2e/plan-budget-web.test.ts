/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// cairn web's plan prompt: the Act phase's estimate, and an approval that sets the budget from it.
const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

beforeEach(() => {
  ws = tempDir("web-budget-ws");
  home = tempDir("web-budget-home");
  writeFileSync(path.join(ws.dir, "app.js"), "console.log('v1');\n");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  ws.cleanup();
  home.cleanup();
});

// The default Anthropic model's price is known (Sonnet: $3 / $15 per million tokens in / out).
const call = (name: string, input: Record<string, unknown>, tokensIn: number): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], usage: { input_tokens: tokensIn, output_tokens: 1_000 } });
const plan = "1. Change the log line in app.js to v2.\n2. Add a v3 line.\n3. Check the file.";

describe("cairn web: a cost agreed before acting", { timeout: 120_000 }, () => {
  it("the plan shows its estimate; 'Approve with budget' sets the budget, the status bar shows the spend against it, and the task stops there", async () => {
    model = await startScriptedModelServer({
      turns: [
        call("plan_mode_respond", { response: plan }, 20_000),
        ...[2, 3, 4, 5, 6].map((v) => call("write_to_file", { path: "app.js", content: `console.log('v${v}');\n` }, 100_000)),
        call("attempt_completion", { result: "Updated app.js" }, 100_000),
      ],
    });
    web = await startScriptedWeb(model, ws.dir, home.dir, ["--auto-approve", "edit"]);
    const page = await browser().newPage();
    await page.goto(web.url);
    await page.locator('::-p-aria([name="Plan"][role="radio"])').click();
    const box = page.locator('::-p-aria([name="Task"][role="textbox"])');
    await box.click();
    await page.keyboard.type("update the log line");
    await page.keyboard.press("Enter");
    const approve = await page.waitForFunction(() => [...document.querySelectorAll("button")].find((b) => b.textContent?.startsWith("Approve with budget $"))?.textContent ?? false, { timeout: 60_000, polling: 100 });
    const label = (await approve.jsonValue()) as string;
    const budget = /\$(\d+\.\d\d)/.exec(label)![1]!;
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toMatch(/Act phase estimate: \$\d+\.\d\d–\$\d+\.\d\d \(4–8 requests/);
    await page.locator(`::-p-aria([name="Approve with budget $${budget}"][role="button"])`).click();
    await page.waitForFunction(() => document.body.innerText.includes("reaching the budget of"), { timeout: 60_000, polling: 100 });
    const status = await page.$eval('footer[aria-label="Task status"]', (n) => (n as HTMLElement).innerText);
    expect(status).toMatch(new RegExp(`\\$\\d+\\.\\d{4} / \\$${budget.replace(".", "\\.")}`));
    expect(await page.evaluate(() => document.body.innerText)).toContain(`Plan approved: switching to Act. Budget: $${budget}.`);
    // Stopped by the budget, before the model's sixth write-or-complete.
    expect(model.requests.length).toBeLessThan(7);
    expect(readFileSync(path.join(ws.dir, "app.js"), "utf8")).not.toContain("v6");
    await page.close();
  });
});
