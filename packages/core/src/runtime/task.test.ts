import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contextWindowFault, startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import { createModel } from "../model/providers.js";
import { allTools } from "../tools/registry.js";
import type { AgentEvent } from "../events/index.js";
import { Task, type TaskOptions, type TaskResult } from "./task.js";

let server: ScriptedModelServer;
let cwd: string;

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-task-")));
});
afterEach(async () => {
  await server?.close();
  rmSync(cwd, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

async function start(turns: ScriptedTurn[], options: Omit<TaskOptions, "model" | "tools" | "workspace"> = {}): Promise<Task> {
  server = await startScriptedModelServer({ turns });
  return new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }), retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    tools: { list: allTools },
    workspace: { cwd },
    ...options,
    policy: { autoApprove: ["read", "edit"], ...options.policy },
  });
}

async function drain(run: AsyncGenerator<AgentEvent, TaskResult>): Promise<{ events: AgentEvent[]; result: TaskResult }> {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

describe("Task", () => {
  it("abort() stops a model stream that hangs, and the run ends as error_aborted", async () => {
    const task = await start([{ delayMs: 60_000 }]);
    const run = drain(task.run("wait forever"));
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    task.abort();
    const { result } = await run;
    expect(result.subtype).toBe("error_aborted");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("abort() while a host is deciding an approval ends the run", async () => {
    let asked = false;
    const task = await start([call("write_to_file", { path: "x.txt", content: "x" })], {
      policy: { autoApprove: [] },
      host: {
        approve: (_request, signal) =>
          new Promise((resolve) => {
            asked = true;
            signal.addEventListener("abort", () => resolve({ approved: false }));
          }),
      },
    });
    const run = drain(task.run("write"));
    while (!asked) await new Promise((r) => setTimeout(r, 10));
    task.abort();
    const { result } = await run;
    expect(result.subtype).toBe("error_aborted");
  });

  it("a host can approve, and deny with feedback that reaches the model", async () => {
    const decisions: string[] = [];
    const task = await start(
      [call("write_to_file", { path: "a.txt", content: "A" }), call("write_to_file", { path: "b.txt", content: "B" }), call("attempt_completion", { result: "ok" })],
      {
        policy: { autoApprove: [] },
        host: {
          approve: async (request) => {
            decisions.push(`${request.tool}:${request.category}`);
            return request.input.path === "a.txt" ? { approved: true } : { approved: false, feedback: "Call it c.txt instead" };
          },
        },
      },
    );
    const { result } = await drain(task.run("write files"));
    expect(result.subtype).toBe("success");
    expect(decisions).toEqual(["write_to_file:edit", "write_to_file:edit"]);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("A");
    expect(() => readFileSync(path.join(cwd, "b.txt"))).toThrow();
    expect(JSON.stringify(server.requests[2]!.body)).toContain("Call it c.txt instead");
    expect(result.permission_denials).toEqual([expect.objectContaining({ tool_name: "write_to_file", tool_input: { path: "b.txt", content: "B" } })]);
  });

  it("hooks see and shape requests, calls and results; subscribers get every event", async () => {
    writeFileSync(path.join(cwd, "a.txt"), "alpha\n");
    const seen: string[] = [];
    const task = await start([call("read_file", { path: "a.txt" }), call("write_to_file", { path: "w.txt", content: "w" }), call("attempt_completion", { result: "ok" })], {
      hooks: {
        loop: {
          beforeModel: (request) => ({ ...request, system: `${request.system}\n\nHOOKED-SYSTEM` }),
          afterModel: (message) => void seen.push(`afterModel:${message.content.length}`),
          beforeTool: (c) => (c.name === "write_to_file" ? { deny: "writes are frozen" } : undefined),
          afterTool: (c, result) => (c.name === "read_file" ? { ...result, content: `${String(result.content)}[annotated]` } : undefined),
          onEvent: (e) => void (e.type === "result" && seen.push("onEvent:result")),
        },
      },
    });
    const subscribed: string[] = [];
    task.subscribe((e) => subscribed.push(e.type));
    const { events, result } = await drain(task.run("go"));
    expect(result.subtype).toBe("success");
    expect(JSON.stringify(server.requests[0]!.body.system)).toContain("HOOKED-SYSTEM");
    expect(JSON.stringify(server.requests[1]!.body)).toContain("alpha\\n[annotated]");
    expect(JSON.stringify(server.requests[2]!.body)).toContain("writes are frozen");
    expect(() => readFileSync(path.join(cwd, "w.txt"))).toThrow();
    expect(seen).toEqual(["afterModel:1", "afterModel:1", "afterModel:1", "onEvent:result"]);
    expect(subscribed).toEqual(events.map((e) => e.type));
  });

  it("continue() goes on after a completion with the person's feedback in the same conversation", async () => {
    const task = await start([call("attempt_completion", { result: "first" }), call("attempt_completion", { result: "second" })]);
    const first = await drain(task.run("do a thing"));
    expect(first.result.result).toBe("first");
    const second = await drain(task.continue("Also do another thing"));
    expect(second.result).toMatchObject({ subtype: "success", result: "second", num_turns: 1 });
    const body = JSON.stringify(server.requests[1]!.body);
    expect(body).toContain("do a thing");
    expect(body).toContain("Also do another thing");
  });

  it("snapshot() and restore() round-trip the conversation", async () => {
    const task = await start([call("attempt_completion", { result: "one" }), call("attempt_completion", { result: "two" })]);
    await drain(task.run("first task"));
    const snap = task.snapshot();
    expect(snap.messages.length).toBe(3);
    expect(snap.turns).toBe(1);
    await drain(task.continue("more"));
    expect(task.snapshot().messages.length).toBe(6);
    task.restore(snap.messages);
    expect(task.snapshot().messages).toEqual(snap.messages);
  });

  it("retries a context-window error once after shrinking, then surfaces it as a typed failure", async () => {
    const task = await start([{ fault: contextWindowFault() }, { fault: contextWindowFault() }, call("attempt_completion", { result: "unreachable" })]);
    const { events, result } = await drain(task.run("huge"));
    expect(result.subtype).toBe("error_during_execution");
    expect(server.requests).toHaveLength(2);
    expect(events.find((e) => e.type === "error")).toMatchObject({ kind: "context_window" });
  });

  it("with compaction off, a context-window error is not retried", async () => {
    const task = await start([{ fault: contextWindowFault() }, call("attempt_completion", { result: "unreachable" })], { limits: { compaction: "off" } });
    const { result } = await drain(task.run("huge"));
    expect(result.subtype).toBe("error_during_execution");
    expect(server.requests).toHaveLength(1);
  });

  it("denies every call in a message after one that was denied", async () => {
    const task = await start([
      { content: [{ type: "tool_use", name: "write_to_file", input: { path: "a.txt", content: "A" } }, { type: "tool_use", name: "read_file", input: { path: "a.txt" } }] },
      call("attempt_completion", { result: "ok" }),
    ], { policy: { autoApprove: ["read"] } });
    const { events } = await drain(task.run("go"));
    const results = events.filter((e): e is Extract<AgentEvent, { type: "tool_call_update"; content: string }> => e.type === "tool_call_update" && "content" in e);
    expect(results.slice(0, 2).map((r) => [r.name, r.status])).toEqual([["write_to_file", "denied"], ["read_file", "cancelled"]]);
    expect(results[1]!.content).toMatch(/^Skipped/);
  });

  it("refuses a tool that is not offered in the current mode", async () => {
    const task = await start([call("write_to_file", { path: "a.txt", content: "A" }), call("read_file", { path: "." })], { policy: { mode: "plan" }, limits: { maxTurns: 2 } });
    const { events } = await drain(task.run("plan it"));
    const init = events[0] as Extract<AgentEvent, { type: "system"; subtype: "init" }>;
    expect(init.tools).not.toContain("write_to_file");
    expect(events.find((e) => e.type === "tool_call_update" && "content" in e)).toMatchObject({ name: "write_to_file", status: "denied", decision: { approved: false, by: "policy" } });
    expect(() => readFileSync(path.join(cwd, "a.txt"))).toThrow();
  });

  it("at the mistake limit an interactive host decides whether the model gets another chance", async () => {
    const reasons: string[] = [];
    const task = await start(
      [call("read_file", { nope: 1 }), call("read_file", { nope: 2 }), call("read_file", { nope: 3 }), call("attempt_completion", { result: "recovered" })],
      { host: { confirmContinue: async (reason) => (reasons.push(reason), true) } },
    );
    const { result } = await drain(task.run("go"));
    expect(result).toMatchObject({ subtype: "success", result: "recovered" });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/3 consecutive mistakes/);
  });
});
