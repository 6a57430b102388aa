import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserSession, type ActionResult, type PageView } from "./browser-session.js";
import type { FileGate } from "./file-requests.js";
import { browserFor, closeBrowserFor, useBrowser } from "./session-registry.js";

const pages: Record<string, string> = {
  "/": "<title>Home</title><p>Home</p>",
  "/other": "<title>Other</title><p>Other</p>",
  "/broken-image": '<title>Broken</title><img src="/missing.png">',
  "/alert": `<title>Alert</title><button style="position:absolute;left:0;top:0;width:200px;height:100px" onclick="alert('Saved!'); document.title='after alert'">Save</button>`,
  "/popup": `<title>Opener</title><button style="position:absolute;left:0;top:0;width:200px;height:100px" onclick="window.open('/other')">Open</button>`,
  "/busy": `<title>Busy</title><button style="position:absolute;left:0;top:0;width:200px;height:100px" onclick="for (;;) {}">Hang</button>`,
  "/docs": `<title>Docs</title><body style="font:15px sans-serif">${"<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. <code>npm test</code></p>".repeat(40)}</body>`,
  "/gradient": '<title>Gradient</title><body style="margin:0;height:600px;background:radial-gradient(circle at 30% 40%, #f90, #036 60%, #000)"></body>',
  "/polling": "<title>Polling</title><script>fetch('/slow')</script>",
};

let server: http.Server;
let origin: string;
const sockets = new Set<Socket>();
let session: BrowserSession;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = request.url ?? "/";
    if (url === "/slow") return; // never answers
    const page = pages[url];
    if (page === undefined) {
      response.statusCode = 404;
      response.setHeader("content-type", "text/html");
      response.end("<title>Not found</title>");
      return;
    }
    response.setHeader("content-type", "text/html");
    response.end(page);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  session = new BrowserSession({ timing: { idleMs: 200, settleTimeoutMs: 2000 } });
});

afterAll(async () => {
  await session.dispose();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** Live Chromium processes started by this test process. */
function chromiumChildren(): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (stat.includes("(chromium)") && state !== "Z" && Number(ppid) === process.pid) found.push(Number(name));
  }
  return found;
}

function view(result: ActionResult): PageView {
  if (!result.ok) throw new Error(`expected a page, got: ${result.message}`);
  return result;
}

describe("BrowserSession", () => {
  it("runs queued actions one after another, so a second launch does not cut off the first", async () => {
    const [first, second] = await Promise.all([session.launch(`${origin}/`), session.launch(`${origin}/other`)]);
    expect(view(first).title).toBe("Home");
    expect(view(second).title).toBe("Other");
  });

  it("keeps a page dense with text lossless, and takes sparse pages and pictures lossy, as they come out smaller", async () => {
    const encoding = (data: Buffer): string => {
      const head = data.subarray(0, 2048);
      return head.includes("VP8L") ? "lossless" : head.includes("VP8 ") ? "lossy" : "?";
    };
    const dense = view(await session.launch(`${origin}/docs`)).screenshot;
    expect(dense.mediaType).toBe("image/webp");
    expect(encoding(dense.data)).toBe("lossless");
    expect(encoding(view(await session.launch(`${origin}/`)).screenshot.data)).toBe("lossy");
    expect(encoding(view(await session.launch(`${origin}/gradient`)).screenshot.data)).toBe("lossy");
  });

  it("names the resource that failed to load", async () => {
    const logs = view(await session.launch(`${origin}/broken-image`)).logs;
    expect(logs).toEqual([`[error] Failed to load resource: the server responded with a status of 404 (Not Found) (${origin}/missing.png)`]);
  });

  it("notes the HTTP status of a page that is an error", async () => {
    expect(view(await session.launch(`${origin}/nope`)).notes).toEqual(["The server answered 404 Not Found."]);
  });

  it("answers dialogs so they do not block the page, and logs them", async () => {
    await session.launch(`${origin}/alert`);
    const after = view(await session.click(100, 50));
    expect(after.logs).toEqual(["[dialog alert] Saved! (accepted)"]);
    expect(after.title).toBe("after alert");
  });

  it("follows a tab the page opens", async () => {
    await session.launch(`${origin}/popup`);
    const after = view(await session.click(100, 50));
    expect(after.url).toBe(`${origin}/other`);
    expect(after.logs).toEqual([`[tab] The page opened a new tab (${origin}/other); the browser now shows it.`]);
  });

  it("shows a page whose requests never finish once the settle time is over, with a note", async () => {
    const result = view(await session.launch(`${origin}/polling`));
    expect(result.title).toBe("Polling");
    expect(result.notes).toEqual(["The page was still loading after 2 s (requests open); the screenshot shows it as it was then."]);
  });

  it("gives up on a page stuck in a script, and a later launch opens a fresh tab", async () => {
    const impatient = new BrowserSession({ timing: { idleMs: 200, responseTimeoutMs: 2500 } });
    try {
      view(await impatient.launch(`${origin}/busy`));
      const stuck = await impatient.click(100, 50);
      expect(stuck).toEqual({
        ok: false,
        message: "The click got no response from the page within 2.5 s (a script may be stuck in a loop). Call launch with a url to load a page again, or close the browser.",
      });
      expect(view(await impatient.launch(`${origin}/other`)).title).toBe("Other");
    } finally {
      await impatient.dispose();
    }
  });

  it("reports a browser that died, and starts a new one on the next launch", async () => {
    view(await session.launch(`${origin}/`));
    const pid = session.pid ?? 0;
    const profile = session.profilePath ?? "";
    process.kill(pid, "SIGKILL");
    await expect.poll(() => session.isRunning).toBe(false);
    expect(await session.scroll("down")).toEqual({
      ok: false,
      message: "The browser closed unexpectedly (it crashed or was killed). Call launch with a url to start a new browser.",
    });
    await expect.poll(() => existsSync(profile)).toBe(false);
    expect(view(await session.launch(`${origin}/other`)).title).toBe("Other");
    expect(session.pid).not.toBe(pid);
  });

  it("a launch stopped while Chromium starts leaves no browser behind once closed", async () => {
    view(await session.launch(`${origin}/`));
    expect(chromiumChildren()).toEqual([session.pid]);
    const fresh = new BrowserSession();
    const controller = new AbortController();
    const launching = fresh.launch(`${origin}/`, { signal: controller.signal });
    await expect.poll(() => chromiumChildren().length).toBe(2); // Chromium is starting
    controller.abort(new Error("stopped"));
    await expect(launching).rejects.toThrow("stopped");
    expect(await fresh.dispose()).toBe(false);
    await expect.poll(() => chromiumChildren(), { timeout: 10_000 }).toEqual([session.pid]);
    expect(fresh.isRunning).toBe(false);
  });
});

describe("file: urls", () => {
  it("go through the gate for the page and everything it loads; the gate's bytes are what the page gets", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-file-gate-"));
    try {
      writeFileSync(path.join(dir, "page.html"), '<title>Local</title><iframe src="secret.txt"></iframe><script src="app.js"></script><p id="p">on disk</p>');
      writeFileSync(path.join(dir, "app.js"), "console.log('app ran')");
      writeFileSync(path.join(dir, "secret.txt"), "DISK-SECRET");
      const asked: string[] = [];
      const gate: FileGate = async (url) => {
        asked.push(path.basename(new URL(url).pathname));
        if (url.endsWith("secret.txt")) return { type: "refused", reason: "blocked by the test" };
        const file = new URL(url).pathname;
        const body = readFileSync(file, "utf8").replace("on disk", "served by the gate");
        return { type: "file", body: Buffer.from(body), path: file };
      };
      const page = view(await session.launch(pathToFileURL(path.join(dir, "page.html")).href, { fileGate: gate, withText: true }));
      expect(page.title).toBe("Local");
      expect(page.text).toContain("served by the gate");
      expect(page.logs).toContain("[log] app ran");
      expect(page.logs.some((line) => line.startsWith("[blocked] file://") && line.endsWith("secret.txt: blocked by the test"))).toBe(true);
      expect(asked.sort()).toEqual(["app.js", "page.html", "secret.txt"]);
      const direct = await session.launch(pathToFileURL(path.join(dir, "secret.txt")).href, { fileGate: gate, withText: true });
      expect(JSON.stringify(direct)).not.toContain("DISK-SECRET");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("are refused without a gate", async () => {
    const bare = new BrowserSession({ timing: { idleMs: 200, settleTimeoutMs: 2000 } });
    const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-file-gate-"));
    try {
      writeFileSync(path.join(dir, "plain.txt"), "PLAIN-CONTENT");
      const result = await bare.launch(pathToFileURL(path.join(dir, "plain.txt")).href, { withText: true });
      expect(JSON.stringify(result)).not.toContain("PLAIN-CONTENT");
    } finally {
      await bare.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("browserFor", () => {
  it("gives each task one session, and a new one after closeBrowserFor", async () => {
    const first = browserFor({ scratchDir: "/tmp/task-a" });
    expect(browserFor({ scratchDir: "/tmp/task-a" })).toBe(first);
    expect(browserFor({ scratchDir: "/tmp/task-b" })).not.toBe(first);
    view(await first.launch(`${origin}/`));
    await closeBrowserFor("/tmp/task-a");
    expect(first.isRunning).toBe(false);
    expect(browserFor({ scratchDir: "/tmp/task-a" })).not.toBe(first);
    await closeBrowserFor("/tmp/task-a");
    await closeBrowserFor("/tmp/task-b");
  });

  it("returns the session a host installed, with its viewport", async () => {
    const wide = new BrowserSession({ viewport: { width: 1280, height: 800 }, screenshot: { type: "png" } });
    useBrowser("/tmp/task-c", wide);
    const { data, mediaType } = view(await browserFor({ scratchDir: "/tmp/task-c" }).launch(`${origin}/`)).screenshot;
    expect(mediaType).toBe("image/png");
    expect(data.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect({ width: data.readUInt32BE(16), height: data.readUInt32BE(20) }).toEqual({ width: 1280, height: 800 });
    await closeBrowserFor("/tmp/task-c");
  });
});
