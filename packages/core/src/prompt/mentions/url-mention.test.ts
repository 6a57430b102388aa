import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IgnoreRules } from "../../policy/ignore-rules.js";
import { expandMentions, type MentionContext } from "./expand-mentions.js";

const page = `<!doctype html>
<html><head><title>Widget &amp; Co docs</title><style>body { color: red; }</style><script>window.TRACKING = "SCRIPT-TEXT";</script></head>
<body>
<nav><a href="/">NAV-HOME</a> <a href="/about">NAV-ABOUT</a></nav>
<main>
<h1>Installing widgets</h1>
<p>Run the <strong>installer</strong>, then read <a href="https://example.com/more">the guide</a>.</p>
<ul><li>first step</li><li>second step</li></ul>
<pre><code>npm install widget</code></pre>
</main>
<script>console.log("SCRIPT-TWO")</script>
</body></html>`;

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/docs") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(page);
    } else if (url === "/moved") {
      res.writeHead(302, { location: "/docs" });
      res.end();
    } else if (url === "/plain") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("just text\n");
    } else if (url === "/image") {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    } else if (url === "/huge") {
      res.writeHead(200, { "content-type": "text/html" });
      const paragraph = `<p>${"word ".repeat(200)}</p>\n`;
      for (let i = 0; i < 3000; i++) res.write(paragraph); // about 3 MB
      res.end("<p>THE-END</p>");
    } else if (url === "/slow") {
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<p>start</p>");
      setTimeout(() => res.end("<p>late</p>"), 5000).unref();
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not here");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function expand(text: string, extra: Partial<MentionContext> = {}) {
  const cwd = os.tmpdir();
  return expandMentions(text, { cwd, ignore: new IgnoreRules(cwd), ...extra });
}

describe("@url", () => {
  it("fetches a page and inlines it as Markdown without scripts, styles or navigation", async () => {
    const result = await expand(`Summarise @${origin}/docs.`);
    expect(result.text.startsWith(`Summarise @${origin}/docs.\n\n<url_content url="${origin}/docs" title="Widget &amp; Co docs">\n`)).toBe(true);
    expect(result.text).toContain("# Installing widgets");
    expect(result.text).toContain("Run the **installer**, then read [the guide](https://example.com/more).");
    expect(result.text).toMatch(/-\s+first step\n-\s+second step/);
    expect(result.text).toContain("```\nnpm install widget\n```");
    for (const absent of ["SCRIPT-TEXT", "SCRIPT-TWO", "NAV-HOME", "color: red"]) expect(result.text).not.toContain(absent);
    expect(result.notes).toEqual([]);
  });

  it("follows redirects and passes plain text through", async () => {
    const moved = await expand(`@${origin}/moved`);
    expect(moved.text).toContain(`<url_content url="${origin}/moved" final_url="${origin}/docs"`);
    expect(moved.text).toContain("# Installing widgets");
    expect((await expand(`@${origin}/plain`)).text).toContain(`<url_content url="${origin}/plain">\njust text\n</url_content>`);
  });

  it("HTTP errors, non-text content, unreachable hosts and timeouts are notes", async () => {
    expect((await expand(`@${origin}/missing`)).notes).toEqual([`@${origin}/missing was not expanded: the server answered 404 Not Found.`]);
    expect((await expand(`@${origin}/image`)).notes).toEqual([`@${origin}/image was not expanded: it is not a web page or text (image/png, 4 B).`]);
    const spare = createServer();
    await new Promise<void>((resolve) => spare.listen(0, "127.0.0.1", resolve));
    const closedPort = (spare.address() as AddressInfo).port;
    await new Promise((resolve) => spare.close(resolve));
    const closed = await expand(`@http://127.0.0.1:${closedPort}/x`);
    expect(closed.notes).toEqual([`@http://127.0.0.1:${closedPort}/x was not expanded: it could not be fetched (connect ECONNREFUSED 127.0.0.1:${closedPort}).`]);
    const slow = await expand(`@${origin}/slow`, { limits: { urlTimeoutMs: 300 } });
    expect(slow.notes).toEqual([`@${origin}/slow was not expanded: the page did not load within 0.3 s.`]);
  });

  it("caps the download at 2 MB and the Markdown at 50 KB, with notes", async () => {
    const result = await expand(`@${origin}/huge`);
    const block = /<url_content[^>]*>\n([\s\S]*)\n<\/url_content>/.exec(result.text)?.[1] ?? "";
    expect(block).not.toContain("THE-END");
    expect(Buffer.byteLength(block)).toBeLessThan(50 * 1024 + 200);
    expect(block).toMatch(/\[The page's text is cut here, at 50 KB of [\d.]+ MB\.\]$/);
    expect(result.notes).toEqual([`@${origin}/huge: the page is over 2.0 MB; only its first 2.0 MB were read.`, `@${origin}/huge: the page's text was cut to 50 KB.`]);
  });

  it("an aborted message rejects instead of waiting", async () => {
    const controller = new AbortController();
    const pending = expand(`@${origin}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stopped by the person")), 100);
    await expect(pending).rejects.toThrow("stopped by the person");
  });
});
