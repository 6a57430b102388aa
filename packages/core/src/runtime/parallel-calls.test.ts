import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import { createModel } from "../model/providers.js";
import { allTools } from "../tools/registry.js";
import type { ApprovalRequest } from "./host.js";
import { Task } from "./task.js";

/**
 * The reads of one reply through a real Task when each needs the person's approval (web_fetch is
 * not auto-approved here): the host is asked about one call at a time, in the reply's order, and
 * the approved fetches are in flight together, checked by a source that answers only once all of
 * them have arrived (or after `holdMs`).
 */

let server: ScriptedModelServer | undefined;
let source: Server | undefined;
let ws: string;

beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-parallel-")));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await new Promise<void>((resolve) => (source ? source.close(() => resolve()) : resolve()));
  source = undefined;
  rmSync(ws, { recursive: true, force: true });
});

async function startSource(expected: number, holdMs: number) {
  const arrived: Array<{ path: string; releasedBy?: string }> = [];
  const waiting: Array<() => void> = [];
  source = createServer((req, res) => {
    const arrival: { path: string; releasedBy?: string } = { path: req.url ?? "" };
    arrived.push(arrival);
    const release = (by: string) => {
      if (arrival.releasedBy) return;
      arrival.releasedBy = by;
      res.writeHead(200, { "content-type": "text/plain" }).end(`page ${arrival.path}`);
    };
    setTimeout(() => release("timeout"), holdMs);
    waiting.push(() => release("all arrived"));
    if (arrived.length === expected) for (const go of waiting) go();
  });
  await new Promise<void>((resolve) => source!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(source.address() as AddressInfo).port}`, arrived };
}

async function runReply(urls: string[], answer: (request: ApprovalRequest) => boolean) {
  server = await startScriptedModelServer({
    turns: [
      { content: urls.map((url) => ({ type: "tool_use" as const, name: "web_fetch", input: { url } })) },
      { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "done" } }] },
    ],
  });
  const log: string[] = [];
  let asking = 0;
  let overlappingAsks = 0;
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }) },
    tools: { list: allTools },
    workspace: { cwd: ws, environmentDetails: false },
    policy: { autoApprove: ["read"] },
    host: {
      approve: async (request) => {
        asking++;
        if (asking > 1) overlappingAsks++;
        log.push(`ask ${String(request.input.url).replace(/^.*\//, "")}`);
        // A person takes a moment to answer.
        await new Promise((resolve) => setTimeout(resolve, 60));
        asking--;
        return { approved: answer(request) };
      },
    },
  });
  const events: AgentEvent[] = [];
  for await (const event of task.run("Fetch the pages")) events.push(event);
  return { log, overlappingAsks, events };
}

it("asks about one read at a time, in the reply's order, and the approved ones are in flight together", async () => {
  const { url, arrived } = await startSource(3, 10_000);
  const { log, overlappingAsks, events } = await runReply([`${url}/a`, `${url}/b`, `${url}/c`], () => true);
  expect(log).toEqual(["ask a", "ask b", "ask c"]);
  expect(overlappingAsks).toBe(0);
  expect(arrived.map((a) => a.releasedBy)).toEqual(["all arrived", "all arrived", "all arrived"]);
  const awaiting = events.filter((e) => e.type === "tool_call_update" && e.status === "awaiting_approval");
  expect(awaiting).toHaveLength(3);
  expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success" });
});

it("a read the person denies stops the reads after it in the reply; those before it still ran", async () => {
  const { url, arrived } = await startSource(3, 300);
  const { log, events } = await runReply([`${url}/a`, `${url}/b`, `${url}/c`], (request) => !String(request.input.url).endsWith("/b"));
  expect(log).toEqual(["ask a", "ask b"]);
  expect(arrived.map((a) => a.path)).toEqual(["/a"]);
  // Each call's end, in the order of the calls: a ran, b was denied, c never ran.
  const ids = events.flatMap((e) => (e.type === "tool_call" && e.name === "web_fetch" ? [e.tool_use_id] : []));
  const endOf = (id: string) => events.find((e) => e.type === "tool_call_update" && e.tool_use_id === id && !["awaiting_approval", "running"].includes(e.status));
  expect(ids.map((id) => (endOf(id) as { status: string }).status)).toEqual(["completed", "denied", "cancelled"]);
});

it("a call's end is announced only once its result is in the journal, in the reply's order, even when a later read ends first", async () => {
  const ended: string[] = [];
  source = createServer((req, res) => {
    // The first page takes a while; the second answers at once, so the second call ends first.
    setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end(`page ${req.url}`, () => void ended.push(req.url ?? "")), req.url === "/slow" ? 300 : 0);
  });
  await new Promise<void>((resolve) => source!.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
  server = await startScriptedModelServer({
    turns: [
      { content: [`${url}/slow`, `${url}/fast`].map((u) => ({ type: "tool_use" as const, name: "web_fetch", input: { url: u } })) },
      { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "done" } }] },
    ],
  });
  const journaled: string[] = [];
  const seenAtEnd: Array<{ id: string; journaled: string[] }> = [];
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }) },
    tools: { list: allTools },
    workspace: { cwd: ws, environmentDetails: false },
    policy: { yolo: true },
    journal: {
      store: {
        message: () => {},
        callResult: (call) => void journaled.push(call.id),
        replaceMessages: () => {},
        event: () => {},
        state: () => {},
      },
    },
  });
  for await (const e of task.run("Fetch both")) {
    if (e.type === "tool_call_update" && e.name === "web_fetch" && ["completed", "failed", "denied", "cancelled"].includes(e.status)) {
      seenAtEnd.push({ id: e.tool_use_id, journaled: [...journaled] });
    }
  }
  expect(ended).toEqual(["/fast", "/slow"]);
  expect(seenAtEnd).toHaveLength(2);
  // Each end came after its own result was written down, and the journal keeps the reply's order.
  for (const end of seenAtEnd) expect(end.journaled).toContain(end.id);
  expect(seenAtEnd.map((e) => e.id)).toEqual(journaled.slice(0, 2));
});
