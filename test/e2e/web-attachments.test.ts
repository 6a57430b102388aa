/// <reference lib="dom" />
// page.evaluate callbacks run in the page.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { goodHeaders, startScriptedWeb, useChromium, type WebRun } from "../support/web-harness.js";

// Pictures attached in the page reach the model as the CLI's --image does: attach button (by
// keyboard), paste, drop; the server judges them by their bytes and refuses in one line.
const browser = useChromium();
let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;
let attacker: Server | undefined;

const done = (result: string): ScriptedTurn => ({ content: [{ type: "tool_use", name: "attempt_completion", input: { result } }] });
/** A real 1x1 PNG. */
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
/** A real 1x1 GIF. */
const gif = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

beforeEach(() => {
  ws = tempDir("web-img-ws");
  home = tempDir("web-img-home");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  attacker?.closeAllConnections();
  await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
  attacker = undefined;
  ws.cleanup();
  home.cleanup();
});

async function serve(turns: ScriptedTurn[], extra: string[] = []): Promise<WebRun> {
  model = await startScriptedModelServer({ turns });
  web = await startScriptedWeb(model, ws.dir, home.dir, extra);
  return web;
}

async function openPage(w: WebRun): Promise<Page> {
  const page = await browser().newPage();
  await page.goto(w.url);
  return page;
}

/** A file on disk for the file chooser. */
function file(name: string, bytes: Buffer): string {
  const at = path.join(ws.dir, name);
  writeFileSync(at, bytes);
  return at;
}

type Source = { type: string; media_type: string; data: string };
/** The pictures of the last user message of a model request, as the Anthropic wire carries them. */
function picturesSent(request: { body: unknown }): Source[] {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const last = messages.filter((m) => m.role === "user").at(-1)!;
  const parts = Array.isArray(last.content) ? (last.content as Array<{ type: string; source?: Source }>) : [];
  return parts.filter((p) => p.type === "image").map((p) => p.source!);
}

const storedTasks = () => (existsSync(path.join(home.dir, "tasks")) ? readdirSync(path.join(home.dir, "tasks")).filter((n) => n !== "index.json") : []);
const waitForText = (page: Page, text: string, timeout = 30_000) =>
  page.waitForFunction((t) => document.body.innerText.includes(t), { timeout, polling: 100 }, text);
const thumbnails = (page: Page) => page.$$eval('ul[aria-label="Attached images"] img', (all) => all.map((i) => i.getAttribute("alt")));
const alertText = (page: Page) => page.$$eval('[role="alert"]', (all) => all.map((a) => a.textContent).join("\n"));

async function typeAndSend(page: Page, label: string, text: string): Promise<void> {
  await page.locator(`::-p-aria([name="${label}"][role="textbox"])`).click();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

/** Pastes or drops a file onto a textarea the way a browser delivers it (a DataTransfer holding a File). */
function deliver(page: Page, how: "paste" | "drop", label: string, name: string, type: string, base64: string): Promise<void> {
  return page.evaluate(
    (how, label, name, type, base64) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], name, { type }));
      const box = document.querySelector(`textarea[aria-label="${label}"]`)!;
      if (how === "paste") box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      else {
        box.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
        box.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
      }
    },
    how,
    label,
    name,
    type,
    base64,
  );
}

/** A POST of raw bytes with every header as given (as an attacking page's browser would send them). */
function postBytes(w: WebRun, urlPath: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: w.port, method: "POST", path: urlPath, headers: { ...headers, "Content-Length": String(body.length) } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("pictures attached in cairn web", { timeout: 90_000 }, () => {
  it("the Attach button, reached by keyboard, attaches a picture; its thumbnail shows, and it reaches the model with its type and bytes", async () => {
    const w = await serve([done("I see a dot.")]);
    const page = await openPage(w);
    const shot = file("shot.png", png);
    // Keyboard only: Tab to the button, Enter opens the file chooser.
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Attach image");
    // Ask for the chooser first, and let one round trip pass so the browser intercepts it before the key
    // arrives: puppeteer turns interception on asynchronously, and a key press can overtake it.
    const chooserShown = page.waitForFileChooser();
    await page.evaluate(() => 0);
    await page.keyboard.press("Enter");
    const chooser = await chooserShown;
    await chooser.accept([shot]);
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Attached images"] img').length === 1, { polling: 100, timeout: 10_000 });
    expect(await thumbnails(page)).toEqual(["shot.png"]);
    expect(model.requests).toHaveLength(0); // attaching does not send
    await typeAndSend(page, "Task", "What is in the picture?");
    await waitForText(page, "Task completed.");
    expect(await page.evaluate(() => document.body.innerText)).toContain("(1 image attached)");
    expect(picturesSent(model.requests[0]!)).toEqual([{ type: "base64", media_type: "image/png", data: png.toString("base64") }]);
    expect(await thumbnails(page)).toEqual([]); // sent: the box is empty again
    await page.close();
  });

  it("a pasted and a dropped picture are attached; one removed before sending never reaches the model", async () => {
    const w = await serve([done("Two pictures.")]);
    const page = await openPage(w);
    // Real JPEG and WebP bytes, as the browser itself encodes them.
    const encoded = await page.evaluate(() => {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 2;
      const ctx = canvas.getContext("2d")!;
      ctx.fillStyle = "#c33";
      ctx.fillRect(0, 0, 2, 2);
      return { jpeg: canvas.toDataURL("image/jpeg").split(",")[1]!, webp: canvas.toDataURL("image/webp").split(",")[1]! };
    });
    await deliver(page, "paste", "Task", "", "image/jpeg", encoded.jpeg);
    await deliver(page, "drop", "Task", "drawing.webp", "image/webp", encoded.webp);
    await deliver(page, "drop", "Task", "extra.gif", "image/gif", gif.toString("base64"));
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Attached images"] img').length === 3, { polling: 100, timeout: 10_000 });
    expect(await thumbnails(page)).toEqual(["pasted jpeg", "drawing.webp", "extra.gif"]);
    await page.locator('::-p-aria([name="Remove image extra.gif"][role="button"])').click();
    expect(await thumbnails(page)).toEqual(["pasted jpeg", "drawing.webp"]);
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.type("Compare these");
    await page.keyboard.press("Enter");
    await waitForText(page, "Task completed.");
    expect(picturesSent(model.requests[0]!)).toEqual([
      { type: "base64", media_type: "image/jpeg", data: encoded.jpeg },
      { type: "base64", media_type: "image/webp", data: encoded.webp },
    ]);
    expect(JSON.stringify(model.requests[0]!.body)).not.toContain(gif.toString("base64"));
    await page.close();
  });

  it("a message's picture count is read back from the stored task: after a reload, and in a new server where the task is opened from the history and carried on", async () => {
    const w = await serve([done("Two dots."), done("Carried on.")]);
    const page = await openPage(w);
    const input = (await page.$('input[type="file"]'))!;
    await input.uploadFile(file("left.png", png), file("right.gif", gif));
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Attached images"] img').length === 2, { polling: 100, timeout: 10_000 });
    await typeAndSend(page, "Task", "Compare the two");
    await waitForText(page, "Task completed.");
    const userMessages = () => page.$$eval(".timeline .msg.user", (all) => all.map((m) => (m as HTMLElement).innerText));
    await page.reload();
    await page.locator('nav[aria-label="History"] button.history-open').click();
    await waitForText(page, "Task completed.");
    expect(await userMessages()).toEqual(["Compare the two (2 images attached)"]);

    // A new server knows nothing the first one kept in memory: the count comes from CAIRN_HOME.
    await w.stop();
    web = await startScriptedWeb(model, ws.dir, home.dir);
    await page.goto(web.url);
    await page.locator('nav[aria-label="History"] button.history-open').click();
    await waitForText(page, "This task is stored.");
    await page.waitForFunction(() => document.querySelector(".timeline .msg.user") !== null, { polling: 100, timeout: 10_000 });
    expect(await userMessages()).toEqual(["Compare the two (2 images attached)"]);
    // Carried on here with a message and no picture: the stored message keeps its count, the new one has none.
    await typeAndSend(page, "Task message", "Anything else?");
    await page.waitForFunction(() => document.querySelectorAll(".timeline .msg.user").length === 2, { polling: 100, timeout: 30_000 });
    expect(await userMessages()).toEqual(["Compare the two (2 images attached)", "Anything else?"]);
    await expect.poll(() => model.requests.length, { timeout: 20_000 }).toBe(2);
    // What the count stands for: the two pictures the stored conversation sent to the model, again on the carried-on request.
    const sent = [
      { type: "base64", media_type: "image/png", data: png.toString("base64") },
      { type: "base64", media_type: "image/gif", data: gif.toString("base64") },
    ];
    expect(picturesSent(model.requests[0]!)).toEqual(sent);
    const first = (model.requests[1]!.body as { messages: Array<{ role: string; content: unknown }> }).messages[0]!;
    expect((first.content as Array<{ type: string; source?: Source }>).filter((p) => p.type === "image").map((p) => p.source)).toEqual(sent);
    await page.close();
  });

  it("a follow-up message carries a picture too", async () => {
    const w = await serve([done("First."), done("Seen.")]);
    const page = await openPage(w);
    await typeAndSend(page, "Task", "Start");
    await waitForText(page, "Task completed.");
    await deliver(page, "paste", "Task message", "", "image/png", png.toString("base64"));
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Attached images"] img').length === 1, { polling: 100, timeout: 10_000 });
    await typeAndSend(page, "Task message", "And this one?");
    await page.waitForFunction(() => document.querySelector(".timeline")!.textContent!.split("Task completed.").length === 3, { polling: 100, timeout: 30_000 });
    expect(picturesSent(model.requests[0]!)).toEqual([]);
    expect(picturesSent(model.requests[1]!)).toEqual([{ type: "base64", media_type: "image/png", data: png.toString("base64") }]);
    await page.close();
  });

  it("the server judges pictures by their bytes, caps their size and count, and the page shows each refusal in one line", async () => {
    const w = await serve([done("unused")]);
    const page = await openPage(w);
    const input = (await page.$('input[type="file"]'))!;
    // Text named .png, and an SVG: refused by content, whatever the name or the type the browser guesses.
    await input.uploadFile(file("fake.png", Buffer.from("just some text, not a picture\n")));
    await page.waitForFunction(() => document.querySelector('[role="alert"]')?.textContent?.includes("fake.png"), { polling: 100, timeout: 10_000 });
    expect(await alertText(page)).toBe("fake.png: Not a PNG, JPEG, GIF or WebP picture (judged by its contents, not its name); attach one of those.");
    // A real PNG signature, over core's 5 MB per picture.
    await input.uploadFile(file("huge.png", Buffer.concat([png, Buffer.alloc(6 * 1024 * 1024)])));
    await page.waitForFunction(() => document.querySelector('[role="alert"]')?.textContent?.includes("huge.png"), { polling: 100, timeout: 10_000 });
    expect(await alertText(page)).toMatch(/^huge\.png: The picture is 6 MB, over the 5 MB a model accepts per image; attach a smaller one\.$/);
    expect(await thumbnails(page)).toEqual([]);
    // Eleven pictures: attached, but the message is refused whole; nothing is started or stored.
    const many = Array.from({ length: 11 }, (_, i) => file(`p${i}.png`, png));
    await input.uploadFile(...many);
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Attached images"] img').length === 11, { polling: 100, timeout: 20_000 });
    await typeAndSend(page, "Task", "Too many");
    await page.waitForFunction(() => document.querySelector('[role="alert"]')?.textContent?.includes("at most"), { polling: 100, timeout: 10_000 });
    expect(await alertText(page)).toBe("A message carries at most 10 pictures; remove 1.");
    expect(model.requests).toHaveLength(0);
    expect(storedTasks()).toEqual([]);
    await page.close();
  });

  it("a model that takes no images: the CLI's one-line refusal, before any task is stored or any request made", async () => {
    const w = await serve([done("unused")], ["--model", "scripted-text-only"]);
    const page = await openPage(w);
    await deliver(page, "paste", "Task", "", "image/png", png.toString("base64"));
    await page.waitForFunction(() => document.querySelectorAll('ul[aria-label="Attached images"] img').length === 1, { polling: 100, timeout: 10_000 });
    await typeAndSend(page, "Task", "Look at this");
    await page.waitForFunction(() => document.querySelector('[role="alert"]')?.textContent?.includes("does not take images"), { polling: 100, timeout: 10_000 });
    expect(await alertText(page)).toBe('scripted-text-only does not take images; leave the images out, choose a model that does (e.g. claude-sonnet-4-5, gpt-5), or, if it does, say so in settings.json: "models": {"scripted-text-only": {"images": true}}.');
    expect(model.requests).toHaveLength(0);
    expect(storedTasks()).toEqual([]);
    // The picture and the text stay, so choosing a model that takes images and sending again works.
    expect(await thumbnails(page)).toEqual(["pasted png"]);
    await (await page.locator('::-p-aria([name="Model"][role="combobox"])').waitHandle()).select("claude-sonnet-4-5");
    await page.locator('::-p-aria([name="Task"][role="textbox"])').click();
    await page.keyboard.press("Enter");
    await waitForText(page, "Task completed.");
    expect((model.requests[0]!.body as { model: string }).model).toBe("claude-sonnet-4-5");
    expect(picturesSent(model.requests[0]!)).toEqual([{ type: "base64", media_type: "image/png", data: png.toString("base64") }]);
    await page.close();
  });

  it("an upload from another origin is refused, from a hostile page in the same browser and from a forged request; the page's own works", async () => {
    const w = await serve([done("Saw the page's picture.")]);
    const page = await openPage(w); // the person's tab now holds the token
    // A page on another port of this machine tries to upload a picture and start a task with it, with the browser's credentials.
    attacker = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<!doctype html><title>hostile</title>");
    });
    await new Promise<void>((resolve) => attacker!.listen(0, "127.0.0.1", () => resolve()));
    const hostile = await browser().newPage();
    await hostile.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    const attack = (target: string, base64: string) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const attempts = [
        // Read the answer (CORS), or fire and forget (no-cors, with a type a form may send).
        fetch(`${target}/api/images`, { method: "POST", credentials: "include", headers: { "Content-Type": "image/png" }, body: bytes }).then((r) => r.status, (e: Error) => e.message),
        fetch(`${target}/api/images`, { method: "POST", credentials: "include", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: bytes }).then((r) => r.type, (e: Error) => e.message),
        fetch(`${target}/api/tasks`, { method: "POST", credentials: "include", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: JSON.stringify({ text: "hostile task" }) }).then((r) => r.type, (e: Error) => e.message),
      ];
      return Promise.all(attempts);
    };
    const hostilePicture = Buffer.concat([png, Buffer.from("hostile")]);
    const outcome = await hostile.evaluate(attack, w.origin, hostilePicture.toString("base64"));
    // The preflight is refused, and a no-cors answer is withheld from the page (Cross-Origin-Resource-Policy): no id leaks.
    expect(outcome).toEqual(["Failed to fetch", "Failed to fetch", "Failed to fetch"]);
    // Forged with the token itself (a page cannot have it, but the check must not need that): refused.
    const forged: Array<Record<string, string>> = [{ Origin: "http://evil.example" }, { Origin: `http://127.0.0.1:${w.port + 1}` }, { "Sec-Fetch-Site": "cross-site" }, { "Sec-Fetch-Site": "same-site" }];
    for (const headers of forged) {
      const res = await postBytes(w, "/api/images", goodHeaders(w, { "Content-Type": "image/png", ...headers }), hostilePicture);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body).not.toContain('"id"');
    }
    // Without the token at all.
    expect((await postBytes(w, "/api/images", { Host: w.host, "Content-Type": "image/png" }, hostilePicture)).status).toBe(401);
    await hostile.close();
    // Nothing was started or stored, and no request reached the model.
    await new Promise((r) => setTimeout(r, 500));
    expect(model.requests).toHaveLength(0);
    expect(storedTasks()).toEqual([]);

    // Positive control: the same upload and task from the page's own origin go through, with the page's picture only.
    await page.bringToFront();
    const own = await page.evaluate(async (base64) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      // As the page's own script does: the token it keeps in its tab's storage, in a header.
      const auth = { Authorization: `Bearer ${sessionStorage.getItem("cairn-web-token")}` };
      const uploaded = (await (await fetch("/api/images", { method: "POST", headers: { "Content-Type": "image/png", ...auth }, body: bytes })).json()) as { id: string };
      const started = await fetch("/api/tasks", { method: "POST", headers: { "Content-Type": "application/json", ...auth }, body: JSON.stringify({ text: "own task", images: [uploaded.id] }) });
      return started.status;
    }, png.toString("base64"));
    expect(own).toBe(201);
    await expect.poll(() => model.requests.length, { timeout: 20_000 }).toBe(1);
    expect(picturesSent(model.requests[0]!)).toEqual([{ type: "base64", media_type: "image/png", data: png.toString("base64") }]);
    expect(JSON.stringify(model.requests[0]!.body)).not.toContain(hostilePicture.toString("base64"));
    expect(storedTasks()).toHaveLength(1);
    await page.close();
  });
});
