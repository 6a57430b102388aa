/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// A reply rendered as markdown in the page, in real Chromium; the model's HTML stays text.
// With UPDATE_SCREENSHOTS=1 the views are saved for the README (docs/web/).
const screenshotDir = process.env.UPDATE_SCREENSHOTS === "1" ? path.join(repoRoot, "docs/web") : undefined;

const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const sample = "## Plan\n\n**greet** the `user`:\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst x: number = 1;\n```";
const more = "\n\n- outer\n  - inner *em*\n- [docs](https://example.com/docs) and <mailto:someone@example.com>\n\n> quoted\n\n---\n\nthe end";
/** Every way a reply could try to run code in the page; each would set window.__pwned. */
const attacks = [
  "<script>window.__pwned = 'script'</script>",
  "",
  'an image <img src="/nope.png" onerror="window.__pwned = \'img\'"> inline',
  "",
  "<svg onload=\"window.__pwned = 'svg'\"><circle r=5></circle></svg>",
  "",
  '<iframe srcdoc="<script>parent.__pwned = \'iframe\'</script>"></iframe>',
  "",
  "[click me](javascript:window.__pwned='link') and <a href=\"javascript:window.__pwned='a'\">raw anchor</a>",
  "",
  "![pic](javascript:window.__pwned='image')",
].join("\n");

const reply = (text: string): ScriptedTurn[] => [
  { content: [{ type: "text", text }, { type: "tool_use", name: "attempt_completion", input: { result: "Replied." } }] },
];

beforeEach(() => {
  ws = tempDir("md-web-ws");
  home = tempDir("md-web-home");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model.close();
  ws.cleanup();
  home.cleanup();
});

async function ask(page: Page, text: string): Promise<void> {
  await page.goto(web!.url);
  await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.body.innerText.includes("Task completed."), { polling: 100, timeout: 30_000 });
}

describe("a reply as markdown in the page", { timeout: 90_000 }, () => {
  it("headings, strong, code, ordered and nested lists, a table, highlighted code, quotes, rules, safe links", async () => {
    model = await startScriptedModelServer({ turns: reply(sample + more) });
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const page = await browser().newPage();
    await page.setViewport({ width: 1400, height: 900 });
    await ask(page, "Plan the greeting");
    const md = ".msg.assistant .markdown";
    const shown = await page.$eval(md, (el) => ({
      h2: el.querySelector("h2")?.textContent,
      strong: el.querySelector("p strong")?.textContent,
      code: el.querySelector("p code")?.textContent,
      ol: [...el.querySelectorAll("ol > li")].map((li) => li.textContent),
      th: [...el.querySelectorAll("table thead th")].map((c) => c.textContent),
      td: [...el.querySelectorAll("table tbody td")].map((c) => c.textContent),
      codeText: el.querySelector("pre > code")?.textContent,
      keyword: [...el.querySelectorAll("pre > code .hljs-keyword")].map((s) => s.textContent),
      number: [...el.querySelectorAll("pre > code .hljs-number")].map((s) => s.textContent),
      nested: el.querySelector("ul > li > ul > li em")?.textContent,
      quote: el.querySelector("blockquote")?.textContent,
      hr: el.querySelectorAll("hr").length,
      links: [...el.querySelectorAll("a")].map((a) => ({ href: a.getAttribute("href"), rel: a.getAttribute("rel"), target: a.getAttribute("target"), text: a.textContent })),
      text: (el as HTMLElement).innerText,
    }));
    expect(shown).toMatchObject({ h2: "Plan", strong: "greet", code: "user", ol: ["one", "two"], th: ["a", "b"], td: ["1", "2"], codeText: "const x: number = 1;", nested: "em", hr: 1 });
    expect(shown.keyword).toContain("const");
    expect(shown.number).toContain("1");
    expect(shown.quote?.trim()).toBe("quoted");
    expect(shown.links).toEqual([
      { href: "https://example.com/docs", rel: "noopener noreferrer", target: "_blank", text: "docs" },
      { href: "mailto:someone@example.com", rel: "noopener noreferrer", target: "_blank", text: "mailto:someone@example.com" },
    ]);
    // No markup left over.
    expect(shown.text).not.toMatch(/##|\*\*|```|\|---/);
    // Code is coloured (not the text colour) in light and dark, and readable on its background.
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      const colours = await page.$eval(`${md} pre .hljs-keyword`, (k) => [getComputedStyle(k).color, getComputedStyle(k.closest("pre")!).color]);
      expect(colours[0], scheme).not.toBe(colours[1]);
      if (screenshotDir) {
        mkdirSync(screenshotDir, { recursive: true });
        await page.screenshot({ path: path.join(screenshotDir, `markdown-${scheme}.png`) as `${string}.png`, fullPage: true });
      }
    }
    // At 375 px the page does not scroll sideways: a wide table or code line scrolls in its own box.
    await page.setViewport({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.close();
  });

  it("the model's HTML is text: script, onerror, onload, srcdoc and javascript: links are inert (with the page's CSP off, so the renderer alone is tested)", async () => {
    model = await startScriptedModelServer({ turns: reply(`Look:\n\n${attacks}`) });
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const page = await browser().newPage();
    // The page's Content-Security-Policy would stop inline script anyway; this test is of the renderer.
    await page.setBypassCSP(true);
    await page.setViewport({ width: 1400, height: 900 });
    await ask(page, "Show me");
    const md = ".msg.assistant .markdown";
    const text = await page.$eval(md, (el) => (el as HTMLElement).innerText);
    // Shown as written…
    expect(text).toContain("<script>window.__pwned = 'script'</script>");
    expect(text).toContain(`<img src="/nope.png" onerror="window.__pwned = 'img'">`);
    expect(text).toContain("<iframe srcdoc=");
    // …and no element of the model's made it into the page.
    expect(await page.$$eval(`${md} script, ${md} img, ${md} svg, ${md} iframe`, (els) => els.length)).toBe(0);
    expect(await page.$$eval(`${md} a`, (as) => as.map((a) => a.getAttribute("href")))).toEqual([]);
    // The javascript: link is a plain span: clicking it does nothing.
    await page.locator("::-p-text(click me)").click();

    // Positive control: the same HTML put into this page as HTML does run (so the checks above could fail).
    await page.evaluate((html) => {
      const box = document.createElement("div");
      box.innerHTML = html.replaceAll("__pwned", "__control");
      document.body.append(box);
    }, attacks);
    await page.waitForFunction(() => (window as unknown as { __control?: string }).__control !== undefined, { polling: 50, timeout: 10_000 });
    // The reply's markup was in the page before the control's and never ran.
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    await page.close();
  });

  it("mid-stream, an open code fence is shown as code, and the finished reply as a whole", async () => {
    const code = Array.from({ length: 30 }, (_, i) => `print("line ${i} **not bold**")`).join("\n");
    model = await startScriptedModelServer({ turns: [{ ...reply(`Here:\n\n\`\`\`python\n${code}\n\`\`\`\n\nDone.`)[0]!, chunkSize: 40, chunkDelayMs: 30 }] });
    web = await startScriptedWeb(model, ws.dir, home.dir);
    const page = await browser().newPage();
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(web.url);
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.type("Print lines");
    await page.keyboard.press("Enter");
    // Seen while the fence is still open: the code is in a code block, no fence, no bold.
    const midway = await page.waitForFunction(
      () => {
        const el = document.querySelector(".msg.assistant[aria-busy='true'] .markdown");
        const code = el?.querySelector("pre > code")?.textContent ?? "";
        return code.includes("line 3") && !code.includes("line 29") ? { text: (el as HTMLElement).innerText, strong: el!.querySelectorAll("strong").length } : false;
      },
      { polling: 20, timeout: 30_000 },
    );
    const seen = (await midway.jsonValue()) as { text: string; strong: number };
    expect(seen.text).not.toContain("```");
    expect(seen.strong).toBe(0);
    await page.waitForFunction(() => document.body.innerText.includes("Task completed."), { polling: 100, timeout: 30_000 });
    const final = await page.$eval(".msg.assistant .markdown", (el) => ({ code: el.querySelector("pre > code")?.textContent, after: el.querySelector("pre")?.closest("figure")?.nextElementSibling?.textContent }));
    expect(final.code).toBe(code);
    expect(final.after).toBe("Done.");
    await page.close();
  });
});

describe("a checkpoint's changes in the page", { timeout: 90_000 }, () => {
  it("are shown as a diff: added and removed lines coloured, the code coloured for its language", async () => {
    mkdirSync(path.join(ws.dir, "src"));
    writeFileSync(path.join(ws.dir, "src/greet.ts"), 'export const greeting = "hello world";\nexport const shout = (s: string) => s.toUpperCase();\n');
    model = await startScriptedModelServer({
      turns: [
        { content: [{ type: "tool_use", name: "replace_in_file", input: { path: "src/greet.ts", diff: '------- SEARCH\nexport const greeting = "hello world";\n=======\nexport const greeting = "hello web";\n+++++++ REPLACE' } }] },
        { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Changed." } }] },
      ],
    });
    web = await startScriptedWeb(model, ws.dir, home.dir, ["--auto-approve", "edit"]);
    const page = await browser().newPage();
    await page.setViewport({ width: 1400, height: 900 });
    await ask(page, "Change the greeting");
    await page.locator("::-p-text(Checkpoints ()").click();
    // Every step's changes open; the edit's step is the one with lines in it. The list is
    // fetched again as the task's checkpoint count settles, so wait until it shows them all
    // and open each step by its place (a held element handle can be replaced meanwhile).
    const steps = (await page.waitForFunction(
      () => {
        const shown = document.querySelectorAll(".steps > li.step").length;
        const count = Number(/Checkpoints \((\d+)\)/.exec(document.querySelector(".timeline-panel summary")?.textContent ?? "")?.[1] ?? 0);
        return shown > 0 && shown === count ? shown : false;
      },
      { polling: 50, timeout: 30_000 },
    ).then((handle) => handle.jsonValue() as Promise<unknown>)) as number;
    for (let n = 1; n <= steps; n++) {
      await page.locator(`.steps > li.step:nth-child(${n}) .step-buttons > button:first-child`).click();
      await page.waitForSelector(`.steps > li.step:nth-child(${n}) .step-buttons > button[aria-expanded="true"]`, { timeout: 30_000 });
    }
    await page.waitForSelector(".patch .diff-add", { timeout: 30_000 });
    const diff = await page.$eval(".patch", (el) => ({
      added: [...el.querySelectorAll(".diff-add")].map((d) => (d as HTMLElement).innerText),
      removed: [...el.querySelectorAll(".diff-del")].map((d) => (d as HTMLElement).innerText),
      addedBg: getComputedStyle(el.querySelector(".diff-add")!).backgroundColor,
      removedBg: getComputedStyle(el.querySelector(".diff-del")!).backgroundColor,
      plainBg: getComputedStyle(el).backgroundColor,
      keywords: [...el.querySelectorAll(".hljs-keyword")].map((k) => k.textContent),
      strings: [...el.querySelectorAll(".diff-add .hljs-string")].map((k) => k.textContent),
    }));
    expect(diff.added.join("\n")).toContain('export const greeting = "hello web";');
    expect(diff.removed.join("\n")).toContain('export const greeting = "hello world";');
    expect(new Set([diff.addedBg, diff.removedBg, diff.plainBg]).size).toBe(3);
    expect(diff.keywords).toContain("export");
    expect(diff.strings).toContain('"hello web"');
    await page.close();
  });
});
