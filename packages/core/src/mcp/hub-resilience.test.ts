import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { globalConfigFile } from "./config.js";
import { McpHubError, type ServerState } from "./connection.js";
import { McpHub } from "./hub.js";
import { serverEntry, startEverythingHttp, writeTestServer } from "./test-servers.js";

let home: string;
let ws: string;
let testServer: string;
let cleanups: Array<() => Promise<void>> = [];

beforeEach(async () => {
  home = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-home-")));
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-ws-")));
  testServer = await writeTestServer(home);
});

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
  await rm(home, { recursive: true, force: true });
  await rm(ws, { recursive: true, force: true });
});

async function load(servers: Record<string, unknown>, restartDelaysMs?: number[]): Promise<McpHub> {
  await writeFile(globalConfigFile(home), JSON.stringify({ mcpServers: servers }));
  const hub = McpHub.load({ home, cwd: ws, ...(restartDelaysMs ? { restartDelaysMs } : {}) });
  cleanups.push(() => hub.close());
  return hub;
}

const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((c) => c.text ?? "").join("\n");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the first state of `name` that matches. */
function stateOf(hub: McpHub, name: string, match: (state: ServerState) => boolean): Promise<ServerState> {
  return new Promise((resolve) => {
    const current = hub.server(name)?.state;
    if (current && match(current)) return resolve(current);
    const off = hub.subscribe((info) => {
      if (info.name === name && match(info.state)) {
        off();
        resolve(info.state);
      }
    });
  });
}

async function rejection(promise: Promise<unknown>): Promise<McpHubError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpHubError);
  return error as McpHubError;
}

describe("McpHub when things go wrong", () => {
  it("refuses arguments that don't fit the tool's schema before the call, so the server never sees them", async () => {
    const hub = await load({ test: { command: process.execPath, args: [testServer] } });
    const error = await rejection(hub.callTool("test", "strict", { n: "three", mode: "c", tags: ["ok", 2], extra: true }));
    expect(error.message).toContain("Invalid arguments for tool strict of MCP server test (the call was not sent):");
    expect(error.message).toContain("- arguments must NOT have additional properties");
    expect(error.message).toContain("- arguments.n must be integer");
    expect(error.message).toContain("- arguments.mode must be equal to one of the allowed values");
    expect(error.message).toContain("- arguments.tags[1] must be string");
    expect(error.message).toContain('Its input schema: {"type":"object","properties":{"n":{"type":"integer"}');
    await expect(hub.callTool("test", "strict", {})).rejects.toThrow("- arguments must have required property 'n'");
    expect(text(await hub.callTool("test", "calls", {}))).toBe("0");

    expect(text(await hub.callTool("test", "strict", { n: 3, mode: "a" }))).toBe('strict got {"n":3,"mode":"a"}');
    expect(text(await hub.callTool("test", "calls", {}))).toBe("1");
  });

  it("fails a call that outlives its timeout with a clear error, and the server keeps serving", async () => {
    const hub = await load({ every: { command: process.execPath, args: [serverEntry.everything()], timeout: 1 } });
    await hub.listTools("every");
    const pid = hub.processId("every");
    const started = Date.now();
    const error = await rejection(hub.callTool("every", "trigger-long-running-operation", { duration: 2, steps: 2 }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.message).toMatch(
      /^tool trigger-long-running-operation on MCP server every did not finish within 1 s \(its timeout\)\. The call was cancelled; the server is still running\. .*raise "timeout" for every in .*mcp_settings\.json\.$/,
    );
    expect(text(await hub.callTool("every", "echo", { message: "still here" }))).toBe("Echo: still here");
    expect(hub.processId("every")).toBe(pid);

    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    await expect(hub.callTool("every", "trigger-long-running-operation", { duration: 2, steps: 2 }, abort.signal)).rejects.toThrow();
    expect(text(await hub.callTool("every", "echo", { message: "after abort" }))).toBe("Echo: after abort");
  });

  it("replaces a server that stops answering after a timeout instead of leaving it wedged", async () => {
    const hub = await load({ test: { command: process.execPath, args: [testServer], timeout: 1 } }, [200, 200]);
    await hub.listTools("test");
    const wedged = hub.processId("test") ?? 0;
    const error = await rejection(hub.callTool("test", "block", { ms: 30_000 }));
    expect(error.message).toMatch(/did not finish within 1 s \(its timeout\)\. The server stopped answering, so it is being restarted\./);
    expect(hub.server("test")?.state).toMatchObject({ status: "failed", reason: "it stopped answering after a call timed out", retryAt: expect.any(Number) });
    expect(text(await hub.callTool("test", "calls", {}))).toBe("0");
    expect(hub.processId("test")).not.toBe(wedged);
    await stateOf(hub, "test", () => !alive(wedged));
    expect(alive(wedged)).toBe(false);
  });

  it("restarts a server whose process died (after 1 s), reports it, and the next call works", async () => {
    const hub = await load({ files: { command: process.execPath, args: [serverEntry.filesystem(), ws] } });
    await writeFile(path.join(ws, "a.txt"), "A");
    await hub.listTools("files");
    const first = hub.processId("files") ?? 0;
    const failed = stateOf(hub, "files", (s) => s.status === "failed");
    process.kill(first, "SIGKILL");
    const state = await failed;
    expect(state).toMatchObject({ status: "failed", reason: expect.stringMatching(/^the server process exited/) });
    expect(state.status === "failed" && (state.retryAt ?? 0) - Date.now()).toBeGreaterThan(500);

    const read = await hub.callTool("files", "read_text_file", { path: path.join(ws, "a.txt") });
    expect(text(read)).toBe("A");
    expect(hub.server("files")?.state.status).toBe("connected");
    expect(hub.processId("files")).not.toBe(first);
  });

  it("tells the model when a server dies during its call, with the server's last words", async () => {
    const hub = await load({ test: { command: process.execPath, args: [testServer] } }, [100, 100]);
    const error = await rejection(hub.callTool("test", "crash", {}));
    expect(error.message).toMatch(
      /^MCP server test went away during tool crash \(.*its last output: test server: crashing on purpose\); it may or may not have taken effect\. The server is being restarted/,
    );
    expect(text(await hub.callTool("test", "calls", {}))).toBe("0");
  });

  it("gives up on a server that cannot start after its attempts, and then fails fast with what to do", async () => {
    const hub = await load(
      {
        missing: { command: path.join(ws, "no-such-server") },
        dies: { command: process.execPath, args: ["-e", "console.error('boom: MY_API_KEY is not set'); process.exit(1)"] },
      },
      [50, 50],
    );
    const first = await rejection(hub.callTool("missing", "x", {}));
    expect(first.message).toMatch(/^MCP server missing could not start: spawn .*no-such-server ENOENT\. Cairn will retry it shortly\. .*cairn mcp test missing/);
    await stateOf(hub, "missing", (s) => s.status === "failed" && s.retryAt === undefined);
    expect(hub.server("missing")?.state).toMatchObject({ reason: expect.stringMatching(/ENOENT \(gave up after 3 attempts\)$/) });
    const fast = Date.now();
    const later = await rejection(hub.callTool("missing", "x", {}));
    expect(Date.now() - fast).toBeLessThan(50);
    expect(later.message).toMatch(/^MCP server missing is not running: .*gave up after 3 attempts\)\. Don't retry; tell the user/);
    expect(later.message).not.toContain("\n");

    const dies = await rejection(hub.listTools("dies"));
    expect(dies.message).toContain("its last output: boom: MY_API_KEY is not set");
  });

  it("reconnects to a streamable HTTP server that went away and came back", async () => {
    const server = await startEverythingHttp("streamableHttp");
    cleanups.push(() => server.stop());
    const hub = await load({ web: { type: "http", url: server.url } });
    expect(text(await hub.callTool("web", "echo", { message: "one" }))).toBe("Echo: one");

    await server.stop();
    const error = await rejection(hub.callTool("web", "echo", { message: "two" }));
    expect(error.message).toMatch(/^MCP server web went away during tool echo \(.+\); .* The server is being restarted/);
    expect(error.message).not.toContain("\n");

    const again = await startEverythingHttp("streamableHttp", server.port);
    cleanups.push(() => again.stop());
    expect(text(await hub.callTool("web", "echo", { message: "three" }))).toBe("Echo: three");
  });
});
