/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// The problems an edit introduced, under its card in `cairn web`, in real Chromium, from a real
// TypeScript server: only the model is scripted.

const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer | undefined;
let web: WebRun | undefined;

beforeEach(() => {
  ws = tempDir("lsp-web-ws");
  home = tempDir("lsp-web-home");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  ws.cleanup();
  home.cleanup();
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

it("an edit's card lists the errors it introduced, in the error colour; a clean edit's card lists none", { timeout: 600_000 }, async () => {
  writeFileSync(path.join(ws.dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
  writeFileSync(path.join(ws.dir, "double.ts"), "export function double(n: number): number {\n  return n * 2;\n}\n");
  // Real servers on a busy machine may take long to load a project the first time.
  writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ checkpoints: false, lsp: { startWaitMs: 240_000, waitMs: 60_000 } }));
  model = await startScriptedModelServer({
    turns: [
      call("write_to_file", { path: "main.ts", content: 'import { double } from "./double";\n\nexport const four: number = double("two");\n' }),
      call("write_to_file", { path: "ok.ts", content: 'import { double } from "./double";\n\nexport const six: number = double(3);\n' }),
      call("attempt_completion", { result: "Edits written." }),
    ],
  });
  web = await startScriptedWeb(model, ws.dir, home.dir, ["--auto-approve", "read,edit"]);
  const page = await browser().newPage();
  await page.setViewport({ width: 1400, height: 900 });
  await page.goto(web.url);
  await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
  await page.keyboard.type("Write the code");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.body.innerText.includes("Task completed."), { polling: 100, timeout: 540_000 });
  const cards = await page.$$eval("article.tool-card", (els) =>
    els.map((el) => {
      const list = el.querySelector('[aria-label="New problems"]');
      return {
        summary: el.querySelector(".tool-summary")?.textContent ?? "",
        problems: list ? (list as HTMLElement).innerText : undefined,
        colour: list ? getComputedStyle(list).color : undefined,
        text: getComputedStyle(el).color,
      };
    }),
  );
  const bad = cards.find((c) => c.summary.includes("main.ts"));
  const clean = cards.find((c) => c.summary.includes("ok.ts"));
  expect(bad?.problems).toMatch(/^1 new problem:\n+main\.ts:3:\d+ TS2345 Argument of type 'string' is not assignable to parameter of type 'number'\./);
  // The error colour, not the card's text colour.
  expect(bad?.colour).not.toBe(bad?.text);
  expect(bad?.colour).toBe(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--error").trim()).then((hex) => rgb(hex)));
  expect(clean).toBeDefined();
  expect(clean?.problems).toBeUndefined();
  await page.close();
});

/** "#b3261e" as the browser reports a computed colour: "rgb(179, 38, 30)". */
function rgb(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}
