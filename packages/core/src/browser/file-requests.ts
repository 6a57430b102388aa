import path from "node:path";
import type { Browser, CDPSession, Protocol } from "puppeteer-core";

/** What the owner of the browser says about one file: URL the browser wants to load. */
export type FileAnswer =
  /** Serve these bytes, read by the gate through a checked descriptor. */
  | { type: "file"; body: Buffer; path: string }
  /** A folder the page may list (Chromium lists its names). */
  | { type: "folder" }
  | { type: "refused"; reason: string }
  | { type: "missing" };

/**
 * Decides each file: URL the browser loads: the page the model opened, and everything that page
 * then asks for (frames, images, scripts, its own redirects, links it follows, tabs it opens).
 */
export type FileGate = (url: string) => Promise<FileAnswer>;

/** Larger files are refused instead of being passed to the browser in one message. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;

/**
 * Puts every file: request of the whole browser (all tabs, frames and popups) through `gate()`,
 * and serves the bytes the gate read itself: Chromium never opens a local file on its own, so a
 * link swapped after the check cannot hand it another file. Without a gate, file: URLs are refused.
 */
export async function gateFileRequests(browser: Browser, gate: () => FileGate | undefined, onRefused: (url: string, reason: string) => void): Promise<void> {
  const session = await browser.target().createCDPSession();
  session.on("Fetch.requestPaused", (event: Protocol.Fetch.RequestPausedEvent) => {
    void answer(session, event, gate(), onRefused).catch(() => {
      // The browser went away, or the request was cancelled meanwhile: nothing is waiting for it.
    });
  });
  await session.send("Fetch.enable", { patterns: [{ urlPattern: "file:*", requestStage: "Request" }] });
}

async function answer(session: CDPSession, event: Protocol.Fetch.RequestPausedEvent, gate: FileGate | undefined, onRefused: (url: string, reason: string) => void): Promise<void> {
  const { requestId } = event;
  const url = event.request.url;
  const verdict: FileAnswer = gate === undefined ? { type: "refused", reason: "local files are opened only through browser_action" } : await gate(url).catch((error: unknown) => ({ type: "refused" as const, reason: error instanceof Error ? error.message : String(error) }));
  switch (verdict.type) {
    case "file":
      if (verdict.body.length > MAX_FILE_BYTES) {
        onRefused(url, `the file is over ${MAX_FILE_BYTES / 1024 / 1024} MB`);
        await session.send("Fetch.failRequest", { requestId, errorReason: "AccessDenied" });
        return;
      }
      await session.send("Fetch.fulfillRequest", {
        requestId,
        responseCode: 200,
        responseHeaders: [{ name: "Content-Type", value: contentTypeOf(verdict.path) }],
        body: verdict.body.toString("base64"),
      });
      return;
    case "folder":
      await session.send("Fetch.continueRequest", { requestId });
      return;
    case "missing":
      await session.send("Fetch.failRequest", { requestId, errorReason: "Failed" });
      return;
    case "refused":
      onRefused(url, verdict.reason);
      await session.send("Fetch.failRequest", { requestId, errorReason: "AccessDenied" });
      return;
  }
}

/** As Chromium types local files, by extension; anything else is shown as text rather than downloaded. */
const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".xhtml": "application/xhtml+xml",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".xml": "text/xml",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".bmp": "image/bmp",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".wasm": "application/wasm",
  ".pdf": "application/pdf",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
};

function contentTypeOf(file: string): string {
  return contentTypes[path.extname(file).toLowerCase()] ?? "text/plain; charset=utf-8";
}
