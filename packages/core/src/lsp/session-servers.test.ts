import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import type { TaskResult } from "../runtime/task.js";
import { openSession } from "../session/open-session.js";

/**
 * A session keeps its language servers warm between runs (an editor's or the web's next prompt
 * finds them started) and stops them when it closes. Real servers, the scripted model.
 */

let root: string;
let cwd: string;
let server: ScriptedModelServer | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-lsp-session-")));
  cwd = path.join(root, "ws");
  mkdirSync(path.join(root, "home"));
  mkdirSync(cwd);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(root, { recursive: true, force: true, maxRetries: 10 });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

async function drain(run: AsyncGenerator<AgentEvent, TaskResult>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return events;
    events.push(next.value);
  }
}

/** Running (not exited) typescript-language-server processes whose folder is the workspace. */
function serversIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) !== dir) continue;
      // The server itself (node running it), not bubblewrap or the shell around it.
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[0] !== process.execPath || !argv[1]?.includes("typescript-language-server")) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (!/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2))) found.push(Number(entry));
    } catch {
      // Gone.
    }
  }
  return found.sort((a, b) => a - b);
}

async function until<T>(value: () => T, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = value();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it("the servers a run started answer the next run's edit, and stop when the session closes", async () => {
  writeFileSync(path.join(cwd, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
  writeFileSync(path.join(cwd, "a.ts"), "export function double(n: number): number {\n  return n * 2;\n}\n");
  server = await startScriptedModelServer({
    turns: [
      call("read_file", { path: "a.ts" }),
      call("attempt_completion", { result: "Read it." }),
      call("write_to_file", { path: "b.ts", content: 'import { double } from "./a";\nexport const x: number = double("two");\n' }),
      call("attempt_completion", { result: "Wrote it." }),
    ],
  });
  const env = { PATH: process.env.PATH, HOME: root, ANTHROPIC_API_KEY: "k", CAIRN_PROVIDER: "anthropic", CAIRN_BASE_URL: server.url };
  // Real servers on a busy machine may take long to load a project the first time: a generous wait.
  writeFileSync(path.join(root, "home", "settings.json"), JSON.stringify({ lsp: { startWaitMs: 240_000, waitMs: 60_000 } }));
  const session = await openSession({ cwd, home: path.join(root, "home"), env, overrides: { autoApprove: ["read", "edit"] }, title: "t" });
  try {
    await drain(session.task.run("Read a.ts"));
    const afterFirst = await until(() => serversIn(cwd), (pids) => pids.length > 0);
    expect(afterFirst).toHaveLength(1);

    const events = await drain(session.task.continue("Now write b.ts"));
    expect(events.find((e) => e.type === "diagnostics")).toMatchObject({ path: "b.ts", server: "typescript", problems: [{ line: 2, code: "TS2345" }] });
    // The same processes: nothing was started again for the second run.
    expect(serversIn(cwd)).toEqual(afterFirst);
  } finally {
    await session.close();
  }
  expect(await until(() => serversIn(cwd), (pids) => pids.length === 0)).toEqual([]);
}, 600_000);
