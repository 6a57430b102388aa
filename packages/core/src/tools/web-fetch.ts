import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { formatBytes, headBytes } from "./text-bytes.js";
import { htmlToMarkdown } from "./web/html-to-markdown.js";
import { defineTool, type ToolResult } from "./tool.js";
import { decodeText, readCapped, type CappedBody } from "./web/http-body.js";

export type WebFetchLimits = {
  /** The whole fetch, body included. */
  timeoutMs: number;
  /** Bytes read from the server; the rest of a bigger page is not downloaded. */
  downloadBytes: number;
  /** Markdown returned to the model; the whole text is saved to a file past this. */
  markdownBytes: number;
};

export const defaultWebFetchLimits: WebFetchLimits = {
  timeoutMs: 20_000,
  downloadBytes: 5 * 1024 * 1024,
  markdownBytes: 50 * 1024,
};

/** How much of an error page's text is shown with its status. */
const ERROR_BODY_BYTES = 2 * 1024;

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;
const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|ecmascript|x-yaml|yaml|toml|x-ndjson|x-sh|graphql|sql)\b|[^;]*\+(json|xml)\b)/i;

const TITLE = /<title[^>]*>([\s\S]*?)<\/title>/i;

const parameters = z.object({
  url: z.string().describe("The address to fetch, starting with http:// or https://."),
});

const description = `Fetch a web page and return its text as Markdown (headings, links, lists and code kept; scripts, styles and navigation left out; the title on top). Plain text, JSON and XML come back as they are; images, PDFs and other binary files are not returned (download those with execute_command and curl).
For documentation, a README, an issue or an API response. It runs no JavaScript: for pages built in the browser, or that need clicks or a login, use browser_action.
Pages over ${defaultWebFetchLimits.markdownBytes / 1024} KB of text are cut, and the whole text saved to a file (its path is given) to read with read_file. Redirects are followed; only http and https work.

Example:
<web_fetch>
<url>https://nodejs.org/api/fs.html</url>
</web_fetch>`;

/** The tool with its limits; `webFetchTool` uses the defaults. */
export function makeWebFetchTool(overrides: Partial<WebFetchLimits> = {}) {
  const limits = { ...defaultWebFetchLimits, ...overrides };
  return defineTool({
    name: "web_fetch",
    description,
    brief: "Fetch an http(s) url and return the page as Markdown text (runs no JavaScript).",
    parameters,
    kind: "browser",
    // A GET of a page: it may run beside reads (browser_action, which drives a page, may not).
    readOnly: true,
    modes: ["act", "plan"],
    access: () => [{ type: "none" }],
    summarize: (input) => `fetch ${input.url}`,
    execute: (input, ctx) => fetchAsMarkdown(input.url, limits, ctx.signal, ctx.scratchDir),
  });
}

export const webFetchTool = makeWebFetchTool();

async function fetchAsMarkdown(raw: string, limits: WebFetchLimits, signal: AbortSignal, scratchDir: string): Promise<ToolResult> {
  const url = parseWebUrl(raw);
  if (typeof url === "string") return failure(url);
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const failed = (reason: string): ToolResult => failure(`Fetching ${url.href} failed: ${reason}`);

  let response: Response;
  let body: CappedBody;
  try {
    response = await fetch(url, {
      signal: combined,
      redirect: "follow",
      headers: {
        "user-agent": "Cairn/0.1 (coding agent; web_fetch)",
        accept: "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5",
      },
    });
    const type = contentType(response);
    if (response.ok && type !== undefined && !isText(type)) {
      await response.body?.cancel().catch(() => {});
      return { content: binaryNote(response, type) };
    }
    body = await readCapped(response, response.ok ? limits.downloadBytes : ERROR_BODY_BYTES * 4);
  } catch (error) {
    if (signal.aborted) return failure("web_fetch was interrupted: the task was stopped.");
    if (timeout.aborted) return failed(`no complete answer within ${limits.timeoutMs / 1000} s. The server may be down or slow; try again later, or another source.`);
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    return failed(`${cause}. Check the address; the server may be unreachable from here.`);
  }

  const type = contentType(response) ?? sniff(body.data);
  const text = isText(type) ? decodeText(body.data, /charset=([^;\s]+)/i.exec(type)?.[1]?.replace(/"/g, "")) : undefined;
  const html = HTML_TYPES.test(type);
  // The title goes on top; htmlToMarkdown keeps a <title> that has no <head> around it.
  const markdown = text === undefined ? undefined : html ? htmlToMarkdown(text.replace(TITLE, "")) : text.trim();

  if (!response.ok) {
    const status = `${response.status} ${response.statusText}`.trimEnd();
    const excerpt = headBytes(markdown ?? "", ERROR_BODY_BYTES);
    const shown = excerpt.text.trim() === "" ? "" : `\nThe page says:\n${excerpt.text.trimEnd()}${excerpt.cut ? "\n[...]" : ""}`;
    return failed(`the server answered ${status}.${shown}`);
  }
  if (text === undefined || markdown === undefined) return { content: binaryNote(response, type, body.total) };

  const header = [`URL: ${response.url || url.href}`];
  const title = html ? titleOf(text) : undefined;
  if (title) header.push(`Title: ${title}`);
  const notes: string[] = [];
  if (body.cut) notes.push(`[Only the first ${formatBytes(limits.downloadBytes)} of the page were downloaded.]`);
  const head = headBytes(markdown, limits.markdownBytes);
  if (head.cut) {
    const saved = await spill(scratchDir, markdown, html);
    const total = formatBytes(Buffer.byteLength(markdown));
    notes.push(`[The text is cut here, at ${formatBytes(limits.markdownBytes)} of ${total}. The whole text is in ${saved}; read the rest with read_file.]`);
  }
  const content = head.text.trimEnd() === "" ? "(The page has no text.)" : head.text.trimEnd();
  return { content: [...header, "", content, ...(notes.length > 0 ? ["", ...notes] : [])].join("\n") };
}

/** An http(s) URL; an address typed without a scheme gets https (http for this machine). */
export function parseWebUrl(raw: string): URL | string {
  const text = raw.trim();
  if (text === "") return "web_fetch needs a url, e.g. https://example.com/docs.";
  const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i.test(text);
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^/]+:\d+(\/|$)/.test(text) ? text : `${local ? "http" : "https"}://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return `${text} is not a valid url. Give a full address, e.g. https://example.com/docs.`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `web_fetch fetches http and https addresses only, not ${url.protocol} ones. For a file in the workspace use read_file.`;
  }
  return url;
}


function contentType(response: Response): string | undefined {
  return response.headers.get("content-type")?.trim() || undefined;
}

function isText(type: string): boolean {
  return HTML_TYPES.test(type) || TEXT_TYPES.test(type);
}

/** A type for a body sent without one: HTML or text unless it holds NUL bytes. */
function sniff(data: Buffer): string {
  const start = data.subarray(0, 1024);
  if (start.includes(0)) return "application/octet-stream";
  return /^\s*(<!doctype html|<html|<head|<body)/i.test(start.toString("utf8")) ? "text/html" : "text/plain";
}

function binaryNote(response: Response, type: string, readBytes?: number): string {
  const length = Number(response.headers.get("content-length") ?? readBytes ?? Number.NaN);
  const size = Number.isFinite(length) ? `, ${formatBytes(length)}` : "";
  const where = response.url || "the address";
  return `${where} is ${type.split(";")[0]}${size}, not a web page or text, so web_fetch returns nothing of it. To look at it, download it with execute_command (curl -L -o <file> '${where}'); read_file shows images and the text of PDFs.`;
}


/** The <title>, decoded and escaped as Markdown by the same converter as the page. */
function titleOf(html: string): string | undefined {
  const inner = TITLE.exec(html)?.[1];
  if (inner === undefined) return undefined;
  const title = htmlToMarkdown(`<p>${inner}</p>`).replace(/\s+/g, " ").trim();
  return title === "" ? undefined : title;
}

async function spill(scratchDir: string, text: string, html: boolean): Promise<string> {
  await mkdir(scratchDir, { recursive: true });
  const file = path.join(scratchDir, `web-fetch-${randomUUID().slice(0, 8)}.${html ? "md" : "txt"}`);
  await writeFile(file, text);
  return file;
}

function failure(content: string): ToolResult {
  return { content, isError: true };
}
