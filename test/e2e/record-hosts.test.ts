import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, expect, it } from "vitest";
import { cairnBin, cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { goodHeaders, rawRequest, startScriptedWeb, type WebRun } from "../support/web-harness.js";

// cairn acp --record <dir> and cairn web --record <dir>: each task a session opens records its model
// exchanges in <dir>/<task id>.jsonl, and cairn replay of that file, with the model server stopped,
// runs the task again into another folder with the same files as a cairn run recording does.

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

const turns = (): ScriptedTurn[] => [
  call("write_to_file", { path: "notes/plan.md", content: "# Plan\n- build\n" }),
  call("execute_command", { command: "mkdir -p out && head -n 1 notes/plan.md > out/build.log && cat README.txt >> out/build.log", requires_approval: false }),
  call("attempt_completion", { result: "Wrote the plan and the build log." }),
];

let server: ScriptedModelServer | undefined;
let web: WebRun | undefined;
let root: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;

beforeEach(() => {
  root = tempDir("record-hosts");
  home = tempDir("home");
  mkdirSync(path.join(root.dir, "seed"));
  writeFileSync(path.join(root.dir, "seed", "README.txt"), "A project to plan and build.\n");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await server?.close();
  server = undefined;
  root.cleanup();
  home.cleanup();
});

function workspace(name: string): string {
  const dir = path.join(root.dir, name);
  cpSync(path.join(root.dir, "seed"), dir, { recursive: true });
  return dir;
}

/** Every file under `dir` and its content, .cairn and .git left out. */
function files(dir: string, under = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, under))) {
    if (name === ".cairn" || name === ".git") continue;
    const rel = path.join(under, name);
    if (statSync(path.join(dir, rel)).isDirectory()) Object.assign(out, files(dir, rel));
    else out[rel] = readFileSync(path.join(dir, rel), "utf8");
  }
  return out;
}

/** The one recording in `dir`, named after `id`, replayed into a fresh folder with no model server: the same files as `recorded`. */
async function replaysAsRecorded(dir: string, id: string, recorded: string): Promise<void> {
  expect(readdirSync(dir)).toEqual([`${id}.jsonl`]);
  const file = path.join(dir, `${id}.jsonl`);
  const text = readFileSync(file, "utf8");
  expect(text).not.toContain("sk-ant-secret-do-not-record");
  const types = text.trim().split("\n").map((l) => (JSON.parse(l) as { type: string }).type);
  expect(types).toEqual(["recording", "message", "session", "exchange", "exchange", "exchange"]);
  await server!.close();
  server = undefined;

  const b = workspace("b");
  const replayed = await runCairn(["replay", file, "--yolo", "--cwd", b], { env: cleanEnv({ CAIRN_HOME: home.dir }), timeoutMs: 60_000 });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(replayed.stderr).toContain("the replay went as recorded (3 model replies)");
  expect(files(b)).toEqual(files(recorded));
  expect(files(b)["out/build.log"]).toBe("# Plan\nA project to plan and build.\n");
}

it("an ACP session recorded with --record <dir> replays into a fresh folder with the model server stopped", async () => {
  server = await startScriptedModelServer({ turns: turns() });
  const a = workspace("a");
  const recordings = path.join(root.dir, "recordings");
  const child = spawn(process.execPath, [cairnBin, "acp", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", server.url, "--yolo", "--record", recordings], {
    cwd: a,
    env: cleanEnv({ ANTHROPIC_API_KEY: "sk-ant-secret-do-not-record", CAIRN_HOME: home.dir }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stream = ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  const app = client({ name: "test-editor" }).onNotification("session/update", () => undefined);
  const id = await app.connectWith(stream, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const session = await ctx.request("session/new", { cwd: a, mcpServers: [] });
    const stop = await ctx.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "Write the plan and build it" }] });
    expect(stop.stopReason, stderr).toBe("end_turn");
    return session.sessionId;
  });
  child.stdin!.end();
  await exited;
  expect(server.requests).toHaveLength(3);
  await replaysAsRecorded(recordings, id, a);
}, 240_000);

it("a cairn web task recorded with --record <dir> replays into a fresh folder with the model server stopped", async () => {
  server = await startScriptedModelServer({ turns: turns() });
  const a = workspace("a");
  const recordings = path.join(root.dir, "recordings");
  web = await startScriptedWeb(server, a, home.dir, ["--model", "claude-sonnet-4-5", "--yolo", "--record", recordings]);
  const w = web;
  const started = await rawRequest(w, { method: "POST", path: "/api/tasks", headers: goodHeaders(w, { "Content-Type": "application/json" }), body: JSON.stringify({ text: "Write the plan and build it" }) });
  expect(started.status, started.body).toBe(201);
  const id = (JSON.parse(started.body) as { id: string }).id;
  // The task's end, as the page sees it on the event stream.
  for (let tries = 0; ; tries++) {
    const events = await rawRequest(w, { path: "/api/events", headers: goodHeaders(w), readMs: 300 });
    if (events.body.includes('"type":"result"')) break;
    expect(tries, `no result on the stream: ${w.stderr()}`).toBeLessThan(200);
  }
  await web.stop();
  web = undefined;
  expect(server.requests).toHaveLength(3);
  await replaysAsRecorded(recordings, id, a);
}, 240_000);
