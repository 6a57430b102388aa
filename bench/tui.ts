/**
 * The interactive UI over a long session (issue 8): the real App rendered by ink to a terminal of
 * 100x40 (a stream that counts what it is sent), a real Task, the scripted model.
 *
 * - Memory: a 300-turn session (150 messages, each a streamed reply with a tool call, then a
 *   completion); heap after GC and RSS at turns 10 and 300, beside the same session run headless
 *   (the Task alone) so the UI's own share shows. Goal: flat (the UI adds < 5 MB from 10 to 300).
 * - Bytes sent to the terminal per frame at turns 10 and 300: a redraw of the history would grow
 *   with it (claude-code#769, #9874). Goal: the same size.
 * - CPU per streamed token with every token rendered (no throttling): goal well under a frame
 *   (16 ms); and per token as shipped (one render per 33 ms frame).
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startScriptedModelServer, type ScriptedTurn } from "../test/support/scripted-model-server.js";
import { drainRun } from "./drain-run.js";
import type { BenchRow } from "./run.js";

const TURNS = 300;
const TOKENS = 3000;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

class Terminal extends Writable {
  isTTY = true;
  columns = 100;
  rows = 40;
  bytes = 0;
  writes = 0;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.bytes += chunk.length;
    this.writes++;
    done();
  }
}

function keyboard(): NodeJS.ReadStream {
  const stdin = new Readable({ read() {} }) as Readable & Record<string, unknown>;
  Object.assign(stdin, { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
  return stdin as unknown as NodeJS.ReadStream;
}

function memory(): { heap: number; rss: number } {
  for (let i = 0; i < 3; i++) gc();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Every even request: a streamed reply and one tool call; every odd one: the completion. Counts
 * the turns itself: the server's record of requests (each holding the whole conversation) is
 * emptied as the session goes, so the model double's memory does not hide the host's.
 */
function scripted(): { responder: (request: unknown, index: number) => ScriptedTurn; turns: () => number } {
  let count = 0;
  return { responder: () => turn(count++), turns: () => count };
}

function turn(index: number): ScriptedTurn {
  const n = Math.floor(index / 2);
  if (index % 2 === 1) return { content: [{ type: "tool_use", name: "attempt_completion", input: { result: `Step ${n} done.` } }] };
  const text = `Looking at step ${n}. ${"The change keeps the parser streaming and the tests green. ".repeat(6)}\nNext I will use a tool.`;
  const tools: Array<{ name: string; input: Record<string, unknown> }> = [
    { name: "read_file", input: { path: "notes.txt" } },
    { name: "write_to_file", input: { path: `out/step-${n % 20}.txt`, content: `step ${n}\n`.repeat(10) } },
    { name: "execute_command", input: { command: `echo step ${n}`, requires_approval: false } },
    { name: "search_files", input: { path: ".", regex: "step" } },
  ];
  return { content: [{ type: "text", text }, { type: "tool_use", ...tools[n % tools.length]! }], chunkSize: 8 };
}

function workspace(): { dir: string; home: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-tui-ws-")));
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-tui-home-")));
  writeFileSync(path.join(dir, "notes.txt"), "notes\n".repeat(50));
  writeFileSync(path.join(home, "settings.json"), JSON.stringify({ checkpoints: false, compaction: "off" }));
  return { dir, home, cleanup: () => [dir, home].forEach((d) => rmSync(d, { recursive: true, force: true })) };
}

/** React and ink load here as `cairn` loads them: production builds, and ink not in its CI mode. */
async function loadUi() {
  const saved = process.env.NODE_ENV;
  const ci = process.env.CI;
  process.env.NODE_ENV = "production";
  delete process.env.CI;
  try {
    const ink = await import("ink");
    const react = await import("react");
    const { App } = await import("../packages/cli/src/tui/app.js");
    const { SessionController } = await import("../packages/cli/src/tui/session-controller.js");
    const { SessionView } = await import("../packages/cli/src/tui/session-view.js");
    const { EventPresenter } = await import("../packages/cli/src/tui/present-events.js");
    const { themeFor } = await import("../packages/cli/src/tui/theme.js");
    const { resolveSettings } = await import("@cairn/core");
    const { overridesOf, parseRunArgs } = await import("@cairn/host/run-args");
    const resolveRunConfig = (args: import("@cairn/host/run-args").RunArgs, env: Record<string, string | undefined>) => resolveSettings({ cwd: args.cwd, env, overrides: overridesOf(args) });
    return { ink, react, App, SessionController, SessionView, EventPresenter, themeFor, resolveRunConfig, parseRunArgs };
  } finally {
    if (saved === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = saved;
    if (ci !== undefined) process.env.CI = ci;
  }
}

type Ui = Awaited<ReturnType<typeof loadUi>>;
type Sample = { heap: number; rss: number; bytesPerWrite?: number };

async function sessionWithUi(ui: Ui): Promise<{ at10: Sample; at300: Sample; held: number }> {
  const ws = workspace();
  const script = scripted();
  const server = await startScriptedModelServer({ responder: script.responder });
  const args = ui.parseRunArgs(["--provider", "anthropic", "--base-url", server.url, "--cwd", ws.dir, "--auto-approve", "read,edit,safe-commands"], ws.dir);
  if (args === "help") throw new Error("unexpected");
  const env = { ANTHROPIC_API_KEY: "k", CAIRN_HOME: ws.home };
  const terminal = new Terminal();
  const view = new ui.SessionView({ columns: terminal.columns, rows: terminal.rows });
  const session = new ui.SessionController(args, { stdout: () => {}, stderr: () => {}, env }, view, ui.resolveRunConfig(args, env));
  const instance = ui.ink.render(ui.react.createElement(ui.App, { session, theme: ui.themeFor({}) }), {
    stdout: terminal as unknown as NodeJS.WriteStream,
    stdin: keyboard(),
    stderr: new Terminal() as unknown as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const samples: Partial<Record<10 | 300, Sample>> = {};
  let mark = { bytes: 0, writes: 0 };
  try {
    for (let n = 0; script.turns() < TURNS; n++) {
      await session.submit(`Carry on with step ${n}`);
      server.requests.length = 0;
      const turns = script.turns();
      for (const at of [10, 300] as const) {
        if (turns >= at && !samples[at]) {
          // The terminal traffic of the last few messages, per write.
          samples[at] = { ...memory(), bytesPerWrite: (terminal.bytes - mark.bytes) / Math.max(1, terminal.writes - mark.writes) };
        }
      }
      if (turns % 10 === 8) mark = { bytes: terminal.bytes, writes: terminal.writes };
    }
    return { at10: samples[10]!, at300: samples[300]!, held: view.heldItems };
  } finally {
    await session.exit();
    instance.unmount();
    await server.close();
    ws.cleanup();
  }
}

async function sessionHeadless(): Promise<{ at10: Sample; at300: Sample }> {
  const { Task, allTools, createModel } = await import("../packages/core/src/index.js");
  const ws = workspace();
  const script = scripted();
  const server = await startScriptedModelServer({ responder: script.responder });
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }) },
    tools: { list: allTools },
    workspace: { cwd: ws.dir },
    policy: { autoApprove: ["read", "edit", "safe-commands"] },
    limits: { compaction: "off" },
  });
  const samples: Partial<Record<10 | 300, Sample>> = {};
  try {
    for (let n = 0; script.turns() < TURNS; n++) {
      await drainRun(n === 0 ? task.run("Step 0") : task.continue(`Carry on with step ${n}`));
      server.requests.length = 0;
      for (const at of [10, 300] as const) if (script.turns() >= at && !samples[at]) samples[at] = memory();
    }
    return { at10: samples[10]!, at300: samples[300]! };
  } finally {
    await server.close();
    ws.cleanup();
  }
}

/** CPU per streamed token: a long reply, one token at a time, into the live region. */
async function tokenCost(ui: Ui, throttled: boolean): Promise<{ msPerToken: number; renders: number; renderMs: number }> {
  const ws = workspace();
  const args = ui.parseRunArgs(["--provider", "anthropic", "--base-url", "http://127.0.0.1:9", "--cwd", ws.dir], ws.dir);
  if (args === "help") throw new Error("unexpected");
  const env = { ANTHROPIC_API_KEY: "k", CAIRN_HOME: ws.home };
  const terminal = new Terminal();
  const view = new ui.SessionView({ columns: 100, rows: 40, frameMs: throttled ? 33 : 0 });
  const session = new ui.SessionController(args, { stdout: () => {}, stderr: () => {}, env }, view, ui.resolveRunConfig(args, env));
  let renders = 0;
  let renderMs = 0;
  const instance = ui.ink.render(ui.react.createElement(ui.App, { session, theme: ui.themeFor({}) }), {
    stdout: terminal as unknown as NodeJS.WriteStream,
    stdin: keyboard(),
    stderr: new Terminal() as unknown as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: throttled ? 30 : 1000,
    onRender: ({ renderTime }) => {
      renders++;
      renderMs += renderTime;
    },
  });
  const presenter = new ui.EventPresenter(view);
  const words = ["the ", "parser ", "streams ", "tokens ", "into ", "the ", "live ", "region, ", "which ", "stays ", "small.\n"];
  await new Promise((resolve) => setTimeout(resolve, 50));
  renders = 0;
  renderMs = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < TOKENS; i++) {
    presenter.apply({ type: "text_delta", message_id: "m", text: words[i % words.length]! });
    if (!throttled) view.flush();
    // Tokens arrive over time; the wait is idle and not counted (CPU time only).
    await new Promise((resolve) => setTimeout(resolve, throttled ? 1 : 2));
  }
  const cpu = process.cpuUsage(before);
  instance.unmount();
  view.dispose();
  ws.cleanup();
  return { msPerToken: (cpu.user + cpu.system) / 1000 / TOKENS, renders, renderMs: renderMs / Math.max(1, renders) };
}

export async function run(): Promise<BenchRow[]> {
  const ui = await loadUi();
  const rows: BenchRow[] = [];
  // The UI first: whichever session runs second starts with the first one's leftovers (~70 MB of
  // caches in the process), which says nothing about either.
  const withUi = await sessionWithUi(ui);
  const headless = await sessionHeadless();
  const uiGrowth = withUi.at300.heap - withUi.at10.heap - (headless.at300.heap - headless.at10.heap);
  rows.push({ bench: "tui", case: `${TURNS}-turn session, headless Task: heap / RSS at turn 10 → 300`, measure: `${mb(headless.at10.heap)} → ${mb(headless.at300.heap)} / ${mb(headless.at10.rss)} → ${mb(headless.at300.rss)}` });
  rows.push({
    bench: "tui",
    case: `${TURNS}-turn session in the TUI: heap / RSS at turn 10 → 300`,
    measure: `${mb(withUi.at10.heap)} → ${mb(withUi.at300.heap)} / ${mb(withUi.at10.rss)} → ${mb(withUi.at300.rss)}`,
    baseline: "headless growth",
    ratio: `UI's own heap growth ${mb(uiGrowth)}; ${withUi.held} history items held`,
    goal: "UI adds < 5 MB",
    pass: uiGrowth < 5 * 1024 * 1024,
  });
  const b10 = withUi.at10.bytesPerWrite ?? 0;
  const b300 = withUi.at300.bytesPerWrite ?? 0;
  rows.push({ bench: "tui", case: "bytes written to the terminal per write, turn 10 → 300", measure: `${Math.round(b10)} → ${Math.round(b300)}`, goal: "no growth with history (±50%)", pass: b300 < b10 * 1.5 });
  const every = await tokenCost(ui, false);
  rows.push({
    bench: "tui",
    case: `streamed token, every token rendered (${TOKENS} tokens)`,
    measure: `${every.msPerToken.toFixed(3)} ms CPU/token; ink output ${every.renderMs.toFixed(3)} ms/frame (${every.renders} frames)`,
    goal: "< 16 ms (one frame)",
    pass: every.msPerToken < 16,
  });
  const shipped = await tokenCost(ui, true);
  rows.push({ bench: "tui", case: `streamed token as shipped (≤ 30 renders/s, ${TOKENS} tokens)`, measure: `${shipped.msPerToken.toFixed(3)} ms CPU/token (${shipped.renders} frames)` });
  return rows;
}
