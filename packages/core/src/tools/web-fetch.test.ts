import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testContext } from "./test-context.js";
import type { ToolContext, ToolResult } from "./tool.js";
import { makeWebFetchTool, parseWebUrl, webFetchTool } from "./web-fetch.js";

const ARTICLE = `<!doctype html>
<html><head><title>Install &amp; Run</title><style>body { color: red }</style><script>var tracking = 1;</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/blog">Blog</a></nav>
<h1>Getting started</h1>
<p>Read the <a href="https://example.com/guide">full guide</a> first.</p>
<h2>Install</h2>
<pre><code class="language-sh">npm install cairn
</code></pre>
<ul><li>fast</li><li>small</li></ul>
<script>console.log("not text")</script>
</body></html>`;

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

let server: http.Server;
let origin: string;
const sockets = new Set<Socket>();
let base: string;
let ctx: ToolContext;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const send = (status: number, type: string | undefined, body: string | Buffer): void => {
      response.statusCode = status;
      if (type !== undefined) response.setHeader("content-type", type);
      response.end(body);
    };
    switch (request.url) {
      case "/article":
        return send(200, "text/html; charset=utf-8", ARTICLE);
      case "/moved":
        response.statusCode = 302;
        response.setHeader("location", "/article");
        return response.end();
      case "/notes.txt":
        return send(200, "text/plain", "line one\n  indented line two\n");
      case "/data.json":
        return send(200, "application/json", '{"name":"cairn","tags":["agent"]}');
      case "/untyped":
        return send(200, undefined, "<html><body><h1>No type</h1></body></html>");
      case "/logo.png":
        return send(200, "image/png", PNG);
      case "/long":
        return send(200, "text/html", `<title>Long</title><h1>Start</h1>${"<p>filler paragraph with some words in it</p>".repeat(3000)}<p>THE END</p>`);
      case "/huge.txt":
        return send(200, "text/plain", "x".repeat(6 * 1024 * 1024));
      case "/missing":
        return send(404, "text/html", "<title>404</title><h1>Page not found</h1><p>Try the search.</p>");
      case "/hang":
        return; // never answers
      default:
        return send(500, "text/plain", "unexpected");
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-web-fetch-")));
  ctx = testContext(base, { scratchDir: path.join(base, "scratch") });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  await rm(base, { recursive: true, force: true });
});

function fetchTool(url: string, tool = webFetchTool, context = ctx): Promise<ToolResult> {
  return tool.execute(tool.parameters.parse({ url }), context);
}

function text(result: ToolResult): string {
  if (typeof result.content !== "string") throw new Error("expected text");
  return result.content;
}

describe("web_fetch", () => {
  it("turns a page into Markdown with its title on top, without scripts, styles or navigation", async () => {
    const result = await fetchTool(`${origin}/article`);
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe(
      [
        `URL: ${origin}/article`,
        "Title: Install & Run",
        "",
        "# Getting started",
        "",
        "Read the [full guide](https://example.com/guide) first.",
        "",
        "## Install",
        "",
        "```sh",
        "npm install cairn",
        "```",
        "",
        "-   fast",
        "-   small",
      ].join("\n"),
    );
  });

  it("follows redirects and shows where it ended", async () => {
    expect(text(await fetchTool(`${origin}/moved`))).toMatch(new RegExp(`^URL: ${origin}/article\nTitle: Install & Run\n`));
  });

  it("passes plain text and JSON through as they are", async () => {
    expect(text(await fetchTool(`${origin}/notes.txt`))).toBe(`URL: ${origin}/notes.txt\n\nline one\n  indented line two`);
    expect(text(await fetchTool(`${origin}/data.json`))).toBe(`URL: ${origin}/data.json\n\n{"name":"cairn","tags":["agent"]}`);
  });

  it("recognises HTML sent without a content type", async () => {
    expect(text(await fetchTool(`${origin}/untyped`))).toBe(`URL: ${origin}/untyped\n\n# No type`);
  });

  it("returns a note, not the bytes, for a binary file", async () => {
    const result = await fetchTool(`${origin}/logo.png`);
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe(
      `${origin}/logo.png is image/png, 29 B, not a web page or text, so web_fetch returns nothing of it. To look at it, download it with execute_command (curl -L -o <file> '${origin}/logo.png'); read_file shows images and the text of PDFs.`,
    );
  });

  it("cuts a long page and saves the whole text for read_file", async () => {
    const result = text(await fetchTool(`${origin}/long`));
    expect(Buffer.byteLength(result)).toBeLessThan(52 * 1024);
    expect(result).not.toContain("THE END");
    const note = /\[The text is cut here, at 50 KB of (\d+) KB\. The whole text is in (\S+); read the rest with read_file\.\]$/.exec(result);
    expect(note).not.toBeNull();
    const saved = await readFile(note?.[2] ?? "", "utf8");
    expect(path.dirname(note?.[2] ?? "")).toBe(ctx.scratchDir);
    expect(saved.startsWith("# Start\n")).toBe(true);
    expect(saved.endsWith("THE END")).toBe(true);
  });

  it("downloads no more than its cap of a huge file", async () => {
    const result = text(await fetchTool(`${origin}/huge.txt`));
    expect(result).toContain("[Only the first 5.0 MB of the page were downloaded.]");
    expect(result).toContain("The whole text is in");
  });

  it("reports an error status with what the page says", async () => {
    expect(await fetchTool(`${origin}/missing`)).toEqual({
      content: `Fetching ${origin}/missing failed: the server answered 404 Not Found.\nThe page says:\n# Page not found\n\nTry the search.`,
      isError: true,
    });
  });

  it("gives up on a server that never answers", async () => {
    const quick = makeWebFetchTool({ timeoutMs: 300 });
    expect(await fetchTool(`${origin}/hang`, quick)).toEqual({
      content: `Fetching ${origin}/hang failed: no complete answer within 0.3 s. The server may be down or slow; try again later, or another source.`,
      isError: true,
    });
  });

  it("stops when the task is stopped", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await fetchTool(`${origin}/hang`, webFetchTool, { ...ctx, signal: controller.signal });
    expect(result).toEqual({ content: "web_fetch was interrupted: the task was stopped.", isError: true });
  });

  it("reports a server that refuses the connection", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await fetchTool(`http://127.0.0.1:${port}/`);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(new RegExp(`^Fetching http://127.0.0.1:${port}/ failed: connect ECONNREFUSED 127.0.0.1:${port}\\. Check the address`));
  });

  it("fetches only http and https", async () => {
    expect(await fetchTool("file:///etc/passwd")).toEqual({
      content: "web_fetch fetches http and https addresses only, not file: ones. For a file in the workspace use read_file.",
      isError: true,
    });
    expect(await fetchTool("  ")).toMatchObject({ isError: true, content: expect.stringContaining("web_fetch needs a url") });
  });

  it("completes an address typed without a scheme", () => {
    expect(String(parseWebUrl("example.com/docs"))).toBe("https://example.com/docs");
    expect(String(parseWebUrl("localhost:3000/api"))).toBe("http://localhost:3000/api");
    expect(String(parseWebUrl("127.0.0.1:8080"))).toBe("http://127.0.0.1:8080/");
    expect(String(parseWebUrl("http://example.com"))).toBe("http://example.com/");
  });

  it("is a browser-kind tool offered in both modes", () => {
    expect(webFetchTool.kind).toBe("browser");
    expect(webFetchTool.modes).toEqual(["act", "plan"]);
    expect(webFetchTool.summarize?.({ url: "https://example.com" })).toBe("fetch https://example.com");
    expect(webFetchTool.description).toMatch(/Example:\n<web_fetch>\n<url>https:\/\/[^<]+<\/url>\n<\/web_fetch>$/);
  });
});
