/**
 * `cairn web` (issue 15): the page while a reply streams, and the server over a long task.
 *
 * - Page: Debian's Chromium on the real page and server, fed a reply at exactly 200 and 1,000
 *   tokens/s (one 4-character delta each, through the server's event log and its event stream).
 *   Counted in the page: events applied per second, frames per second and frames over 50 ms
 *   (dropped), beside the same page idle. Goal at 200 tokens/s: no dropped frames.
 * - Memory: a 300-turn task driven through the HTTP API with a page's event stream open, heap
 *   after GC at turns 10 and 300, beside the same task run headless (the Task alone) so the web
 *   host's own share shows. Goal: flat (the host adds < 5 MB from turn 10 to 300).
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startScriptedModelServer, type ScriptedTurn } from "../test/support/scripted-model-server.js";
import { drainRun } from "./drain-run.js";
import type { BenchRow } from "./run.js";

const TURNS = 300;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function heap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}
const pct = (share: number | undefined) => (share === undefined ? "?" : `${(share * 100).toFixed(1)}%`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function workspace(): { dir: string; home: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-web-ws-")));
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-web-home-")));
  writeFileSync(path.join(dir, "notes.txt"), "notes\n".repeat(50));
  writeFileSync(path.join(home, "settings.json"), JSON.stringify({ checkpoints: false, compaction: "off" }));
  return { dir, home, cleanup: () => [dir, home].forEach((d) => rmSync(d, { recursive: true, force: true })) };
}

/** Even requests: a streamed reply and a read; odd ones: the completion of that message. */
function scripted(): { responder: () => ScriptedTurn; turns: () => number } {
  let count = 0;
  return {
    responder: () => {
      const index = count++;
      const n = Math.floor(index / 2);
      if (index % 2 === 1) return { content: [{ type: "tool_use", name: "attempt_completion", input: { result: `Step ${n} done.` } }] };
      const text = `Looking at step ${n}. ${"The change keeps the parser streaming and the tests green. ".repeat(6)}`;
      return { content: [{ type: "text", text }, { type: "tool_use", name: "read_file", input: { path: "notes.txt" } }], chunkSize: 8 };
    },
    turns: () => count,
  };
}

async function loadWeb() {
  const { startWebServer } = await import("../packages/web/src/web-server.js");
  const { parseRunArgs } = await import("@cairn/host/run-args");
  return { startWebServer, parseRunArgs };
}
type Web = Awaited<ReturnType<typeof loadWeb>>;

function call(port: number, token: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method, path: p, headers: { Host: `127.0.0.1:${port}`, Authorization: `Bearer ${token}`, "Content-Type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A page's event stream, read and dropped as it comes (the page keeps its own state). */
function openStream(port: number, token: string): () => void {
  const req = request({ host: "127.0.0.1", port, path: "/api/events", headers: { Host: `127.0.0.1:${port}`, Authorization: `Bearer ${token}` } }, (res) => res.resume());
  req.on("error", () => {});
  req.end();
  return () => req.destroy();
}

async function webSession(web: Web): Promise<{ at10: number; at300: number; logEntries: number }> {
  const ws = workspace();
  const script = scripted();
  const model = await startScriptedModelServer({ responder: script.responder });
  const args = web.parseRunArgs(["--provider", "anthropic", "--base-url", model.url, "--cwd", ws.dir], ws.dir);
  if (args === "help") throw new Error("unexpected");
  const server = await web.startWebServer({ host: "127.0.0.1", port: 0, args, env: { ...process.env, ANTHROPIC_API_KEY: "k", CAIRN_HOME: ws.home } });
  const close = openStream(server.port, server.token);
  const samples: Partial<Record<10 | 300, number>> = {};
  try {
    let id = "";
    for (let n = 0; script.turns() < TURNS; n++) {
      const sent = n === 0 ? await call(server.port, server.token, "POST", "/api/tasks", { text: "Step 0" }) : await call(server.port, server.token, "POST", `/api/tasks/${id}/messages`, { text: `Carry on with step ${n}` });
      if (sent.status >= 300) throw new Error(`the server refused a message: ${sent.body}`);
      if (n === 0) id = (JSON.parse(sent.body) as { id: string }).id;
      while (server.hub.get(id)?.running !== false) await new Promise((r) => setTimeout(r, 5));
      model.requests.length = 0;
      for (const at of [10, 300] as const) if (script.turns() >= at && !samples[at]) samples[at] = heap();
    }
    return { at10: samples[10]!, at300: samples[300]!, logEntries: server.hub.log.size };
  } finally {
    close();
    await server.close();
    await model.close();
    ws.cleanup();
  }
}

async function headlessSession(): Promise<{ at10: number; at300: number }> {
  const { Task, allTools, createModel } = await import("@cairn/core");
  const ws = workspace();
  const script = scripted();
  const model = await startScriptedModelServer({ responder: script.responder });
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: model.url }) },
    tools: { list: allTools },
    workspace: { cwd: ws.dir },
    policy: { autoApprove: ["read"] },
    limits: { compaction: "off" },
  });
  const samples: Partial<Record<10 | 300, number>> = {};
  try {
    for (let n = 0; script.turns() < TURNS; n++) {
      await drainRun(n === 0 ? task.run("Step 0") : task.continue(`Carry on with step ${n}`));
      model.requests.length = 0;
      for (const at of [10, 300] as const) if (script.turns() >= at && !samples[at]) samples[at] = heap();
    }
    return { at10: samples[10]!, at300: samples[300]! };
  } finally {
    await model.close();
    ws.cleanup();
  }
}

type FrameStats = { frames: number; long: number; seconds: number; events: number; busy?: number };

/** Counted in the page for `ms`: animation frames, those over 50 ms, and the events the page applied. */
const measureFrames = (ms: number) => `new Promise((resolve) => {
  const store = window.cairnStore;
  const startEvents = store.eventsApplied;
  const start = performance.now();
  let last = -1, frames = 0, long = 0;
  const tick = (now) => {
    frames++;
    // Gaps between two frames; the wait for the first one is not a frame.
    if (last >= 0 && now - last > 50) long++;
    last = now;
    if (now - start < ${ms}) requestAnimationFrame(tick);
    else resolve({ frames, long, seconds: (now - start) / 1000, events: store.eventsApplied - startEvents });
  };
  requestAnimationFrame(tick);
})`;

/**
 * The page alone, fed at an exact rate: a task's events go into the server's log as a model's
 * reply would (one text delta of 4 characters each), so the page and the event stream are measured,
 * not how fast the agent and the model double can produce tokens on a busy machine.
 */
async function pageStreaming(web: Web, rates: number[]): Promise<{ idle: FrameStats; streaming: Map<number, FrameStats> } | string> {
  const { chromiumArgs, findChromium } = await import("@cairn/core");
  const found = await findChromium();
  if (!found.found) return found.message;
  const { default: puppeteer } = await import("puppeteer-core");
  const ws = workspace();
  const args = web.parseRunArgs(["--provider", "anthropic", "--base-url", "http://127.0.0.1:9", "--cwd", ws.dir], ws.dir);
  if (args === "help") throw new Error("unexpected");
  const server = await web.startWebServer({ host: "127.0.0.1", port: 0, args, env: { ...process.env, ANTHROPIC_API_KEY: "k", CAIRN_HOME: ws.home } });
  const browser = await puppeteer.launch({ executablePath: found.path, headless: true, args: chromiumArgs() });
  const task = "bench-task";
  server.hub.log.append(task, { type: "session_opened", task_id: task, title: "A long answer", cwd: ws.dir, model: "m", provider: "anthropic", context_window: 200_000, mode: "act" });
  server.hub.log.append(task, { type: "user_message", text: "Write a long answer" });
  server.hub.log.append(task, { type: "turn_start", turn: 1, reason: "task" });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 800 });
    await page.goto(`${server.url}`);
    await page.waitForSelector("textarea");
    await page.evaluate(`document.querySelector('nav[aria-label="Open tasks"] button:nth-child(2)').click()`);
    // The page's main-thread time (scripts, style, layout, paint), from Chromium's own counters: what
    // the page costs, apart from how busy the rest of the machine is.
    const cdp = await page.createCDPSession();
    await cdp.send("Performance.enable");
    const taskSeconds = async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration")?.value ?? 0;
    // A string, not a function: the bench runs under tsx, whose helpers do not exist in the page.
    const measure = async (seconds: number): Promise<FrameStats> => {
      const before = await taskSeconds();
      const stats = (await page.evaluate(measureFrames(seconds * 1000))) as FrameStats;
      return { ...stats, busy: ((await taskSeconds()) - before) / stats.seconds };
    };
    // A first short reply, so the first measured frames are not the page's first render of one.
    for (let i = 0; i < 50; i++) server.hub.log.append(task, { type: "text_delta", message_id: "warm-up", text: "word " });
    await new Promise((r) => setTimeout(r, 500));
    const idle = await measure(6);
    const streaming = new Map<number, FrameStats>();
    for (const [i, rate] of rates.entries()) {
      const measuring = measure(6);
      const start = performance.now();
      let sent = 0;
      const feeder = setInterval(() => {
        const due = Math.floor(((performance.now() - start) / 1000) * rate);
        for (; sent < due; sent++) server.hub.log.append(task, { type: "text_delta", message_id: `m${i}`, text: "word " });
      }, 4);
      streaming.set(rate, await measuring);
      clearInterval(feeder);
    }
    return { idle, streaming };
  } finally {
    await browser.close();
    await server.close();
    ws.cleanup();
  }
}

export async function run(): Promise<BenchRow[]> {
  const web = await loadWeb();
  const rows: BenchRow[] = [];
  const page = await pageStreaming(web, [200, 1000]);
  if (typeof page === "string") {
    rows.push({ bench: "web", case: "page while a reply streams", measure: `skipped: ${page}` });
  } else {
    const { idle, streaming } = page;
    const idleFps = idle.frames / idle.seconds;
    for (const [rate, stats] of streaming) {
      const fps = stats.frames / stats.seconds;
      rows.push({
        bench: "web",
        case: `page: a reply streaming at ${rate} tokens/s`,
        measure: `${Math.round(stats.events / stats.seconds)} events/s rendered, ${Math.round(fps)} frames/s, ${stats.long} over 50 ms; main thread busy ${pct(stats.busy)}`,
        baseline: `idle: ${Math.round(idleFps)} frames/s, ${idle.long} over 50 ms; busy ${pct(idle.busy)}`,
        ratio: `${(fps / idleFps).toFixed(2)} of idle frame rate`,
        // Dropped frames on this shared machine also count the other processes; the page's own share
        // is its main-thread time, which must leave most of every frame free.
        ...(rate === 200 ? { goal: "page busy < 25% (room for 60 frames/s), ≥ 0.9 × idle frame rate", pass: (stats.busy ?? 1) < 0.25 && fps >= 0.9 * idleFps } : {}),
      });
    }
  }
  const headless = await headlessSession();
  const withWeb = await webSession(web);
  const added = withWeb.at300 - withWeb.at10 - (headless.at300 - headless.at10);
  rows.push({
    bench: "web",
    case: `server heap over a ${TURNS}-turn task`,
    measure: `${mb(withWeb.at10)} at turn 10, ${mb(withWeb.at300)} at ${TURNS} (${withWeb.logEntries} events logged)`,
    baseline: `headless ${mb(headless.at10)} → ${mb(headless.at300)}`,
    ratio: `web adds ${mb(added)}`,
    goal: "< 5 MB added",
    pass: added < 5 * 1024 * 1024,
  });
  return rows;
}
