import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { BrowserSession, closeBrowserFor, useBrowser } from "../browser/index.js";
import type { ImagePart, TextPart } from "../model/types.js";
import { browserActionTool } from "./browser-action.js";
import { testContext } from "./test-context.js";
import type { ToolContext, ToolResult } from "./tool.js";

const MAIN_PAGE = `<!doctype html>
<html><head><title>Test page</title></head>
<body style="margin:0;height:3000px;font:16px sans-serif">
<button id="go" style="position:absolute;left:20px;top:20px;width:200px;height:60px"
  onclick="document.title='Clicked'; document.getElementById('state').textContent='Clicked!'; console.log('clicked')">Go</button>
<input id="name" style="position:absolute;left:20px;top:120px;width:300px;height:40px"
  onkeydown="if (event.key === 'Enter') console.log('typed: ' + this.value)">
<h1 id="state" style="position:absolute;left:20px;top:200px">Waiting</h1>
<script>
  console.log('page ready', { count: 1 });
  setTimeout(() => { throw new Error('boom from page'); }, 0);
</script>
</body></html>`;

let server: http.Server;
let origin: string;
const sockets = new Set<Socket>();
let base: string;
let ctx: ToolContext;
let session: BrowserSession;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === "/slow") return; // never answers
    if (request.url === "/other") {
      response.setHeader("content-type", "text/html");
      response.end("<title>Other page</title><p>Another page</p>");
      return;
    }
    if (request.url === "/") {
      response.setHeader("content-type", "text/html");
      response.end(MAIN_PAGE);
      return;
    }
    response.statusCode = 404;
    response.end("not found");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-browser-tool-")));
  ctx = testContext(base, { scratchDir: path.join(base, "scratch") });
  // One browser for the whole file; short quiet time so each action settles quickly.
  session = new BrowserSession({ timing: { idleMs: 200 } });
  useBrowser(ctx.scratchDir, session);
});

afterAll(async () => {
  await closeBrowserFor(ctx.scratchDir);
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  await rm(base, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

function act(input: Record<string, unknown>, context = ctx): Promise<ToolResult> {
  return browserActionTool.execute(browserActionTool.parameters.parse(input), context);
}

function textOf(result: ToolResult): string {
  if (typeof result.content === "string") return result.content;
  return result.content
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

function imageOf(result: ToolResult): Buffer {
  if (typeof result.content === "string") throw new Error(`no image in: ${result.content}`);
  const image = result.content.find((part): part is ImagePart => part.type === "image");
  if (image === undefined) throw new Error("no image part");
  expect(image.mediaType).toBe("image/webp");
  return Buffer.from(image.data, "base64");
}

/** Width and height from a WebP file's header (the extended, lossy and lossless forms). */
function webpSize(data: Buffer): { width: number; height: number } {
  expect(data.subarray(0, 4).toString("latin1")).toBe("RIFF");
  expect(data.subarray(8, 12).toString("latin1")).toBe("WEBP");
  const chunk = data.subarray(12, 16).toString("latin1");
  if (chunk === "VP8X") return { width: data.readUIntLE(24, 3) + 1, height: data.readUIntLE(27, 3) + 1 };
  if (chunk === "VP8 ") return { width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff };
  const bits = data.readUInt32LE(21);
  return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
}

describe("browser_action", () => {
  it("launches a local page and returns a screenshot, the URL, the title and the console output", async () => {
    const result = await act({ action: "launch", url: `${origin}/` });
    const text = textOf(result);
    expect(result.isError).toBeUndefined();
    expect(text).toContain(`Opened ${origin}/.`);
    expect(text).toContain(`URL: ${origin}/`);
    expect(text).toContain("Title: Test page");
    expect(text).toContain('[log] page ready {"count":1}');
    expect(text).toMatch(/\[page error\] Error: boom from page/);
    const image = imageOf(result);
    expect(image.length).toBeGreaterThan(500);
    expect(webpSize(image)).toEqual({ width: 900, height: 600 });
  });

  it("clicks at a coordinate of the screenshot, which changes the page", async () => {
    const before = imageOf(await act({ action: "launch", url: `${origin}/` }));
    const result = await act({ action: "click", coordinate: "120,50" });
    const text = textOf(result);
    expect(text).toContain("Clicked at 120,50.");
    expect(text).toContain("Title: Clicked");
    expect(text).toContain("Mouse position: 120,50");
    expect(text).toContain("[log] clicked");
    expect(text).not.toContain("page ready"); // only what happened since the last action
    expect(imageOf(result).equals(before)).toBe(false);
  });

  it("a click where nothing reacts changes nothing and reports no logs", async () => {
    await act({ action: "launch", url: `${origin}/` });
    const text = textOf(await act({ action: "click", coordinate: "(700, 500)" }));
    expect(text).toContain("Title: Test page");
    expect(text).toContain("Console logs: (none since the last action)");
  });

  it("types into the focused field; a line break presses Enter", async () => {
    await act({ action: "launch", url: `${origin}/` });
    await act({ action: "click", coordinate: "150,140" });
    const result = await act({ action: "type", text: "hello world\n" });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toContain("[log] typed: hello world");
  });

  it("says so when nothing had focus to type into", async () => {
    await act({ action: "launch", url: `${origin}/` });
    const text = textOf(await act({ action: "type", text: "lost" }));
    expect(text).toContain("No element had focus");
  });

  it("scrolls down and up by one viewport height", async () => {
    await act({ action: "launch", url: `${origin}/` });
    const down = textOf(await act({ action: "scroll_down" }));
    expect(down).toContain("Scroll position: 600 px from the top of a page 3000 px tall");
    const up = textOf(await act({ action: "scroll_up" }));
    expect(up).toContain("Scroll position: 0 px from the top");
  });

  it("gives the page's text instead of a screenshot to a model without images", async () => {
    const result = await act({ action: "launch", url: `${origin}/` }, { ...ctx, modelSupportsImages: false });
    expect(typeof result.content).toBe("string");
    expect(textOf(result)).toContain("[No screenshot: the current model cannot take images. The page's visible text:]\nGo\n");
    expect(textOf(result)).toContain("Waiting");
  });

  it("closes the browser, removes its profile, and launches a new one afterwards", async () => {
    await act({ action: "launch", url: `${origin}/` });
    const profile = session.profilePath;
    const pid = session.pid;
    expect(profile !== undefined && existsSync(profile)).toBe(true);
    expect(pid).toBeTypeOf("number");

    expect(await act({ action: "close" })).toEqual({ content: "The browser is closed." });
    expect(existsSync(profile ?? "")).toBe(false);
    expect(() => process.kill(pid ?? 0, 0)).toThrow();
    expect(await act({ action: "close" })).toEqual({ content: "The browser was not running; there was nothing to close." });
    const click = await act({ action: "click", coordinate: "10,10" });
    expect(click).toEqual({ content: "The browser is not running. Start it with the launch action and a url.", isError: true });

    const again = await act({ action: "launch", url: `${origin}/other` });
    expect(textOf(again)).toContain("Title: Other page");
    expect(session.pid).not.toBe(pid);
  });

  it("rejects calls that lack what their action needs, before touching the browser", async () => {
    expect(await act({ action: "launch" })).toMatchObject({ isError: true, content: expect.stringContaining("launch needs a url") });
    expect(await act({ action: "launch", url: "ftp://example.com/file" })).toMatchObject({ isError: true, content: expect.stringContaining("not ftp: ones") });
    expect(await act({ action: "click" })).toMatchObject({ isError: true, content: expect.stringContaining("click needs a coordinate") });
    expect(await act({ action: "click", coordinate: "left" })).toMatchObject({ isError: true, content: expect.stringContaining('is not "x,y"') });
    expect(await act({ action: "click", coordinate: "950,10" })).toMatchObject({ isError: true, content: expect.stringContaining("outside the 900x600 screenshot") });
    expect(await act({ action: "type" })).toMatchObject({ isError: true, content: expect.stringContaining("type needs text") });
  });

  it("accepts an address without a scheme, as people write it", async () => {
    const text = textOf(await act({ action: "launch", url: `${origin.replace("http://", "")}/other` }));
    expect(text).toContain(`URL: ${origin}/other`);
  });

  it("reports a page that cannot be opened", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await act({ action: "launch", url: `http://127.0.0.1:${port}/` });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`Could not open http://127.0.0.1:${port}/: net::ERR_CONNECTION_REFUSED`);
  });

  it("stops waiting for a page that never loads when the task is stopped", async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    const result = await act({ action: "launch", url: `${origin}/slow` }, { ...ctx, signal: controller.signal });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("interrupted: the task was stopped");
    // The load would wait 15 s; the abort ends the call long before.
    expect(Date.now() - started).toBeLessThan(10_000);
    // The browser is still usable.
    expect(textOf(await act({ action: "launch", url: `${origin}/other` }))).toContain("Title: Other page");
  });

  it("says how to get Chromium when there is none", async () => {
    vi.stubEnv("CAIRN_CHROMIUM_PATH", path.join(base, "no-such-chromium"));
    const other = testContext(base, { scratchDir: path.join(base, "scratch-no-chromium") });
    try {
      const result = await act({ action: "launch", url: `${origin}/` }, other);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^No Chromium found: CAIRN_CHROMIUM_PATH is .*no-such-chromium, which is not an executable file\./);
    } finally {
      await closeBrowserFor(other.scratchDir);
    }
  });

  it("summarizes each action in one line", () => {
    const summarize = browserActionTool.summarize;
    expect(summarize?.({ action: "launch", url: "http://localhost:3000" })).toBe("browser launch http://localhost:3000");
    expect(summarize?.({ action: "click", coordinate: "10,20" })).toBe("browser click 10,20");
    expect(summarize?.({ action: "type", text: "hi" })).toBe('browser type "hi"');
    expect(summarize?.({ action: "scroll_down" })).toBe("browser scroll down");
    expect(summarize?.({ action: "close" })).toBe("browser close");
    expect(browserActionTool.kind).toBe("browser");
    expect(browserActionTool.modes).toEqual(["act"]);
  });
});
