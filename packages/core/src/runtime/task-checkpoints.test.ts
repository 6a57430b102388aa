import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import { Checkpoints } from "../checkpoints/index.js";
import { createModel } from "../model/providers.js";
import { allTools } from "../tools/registry.js";
import type { AgentEvent } from "../events/index.js";
import { Task } from "./task.js";

let server: ScriptedModelServer | undefined;
let root: string;
let cwd: string;
let baseDir: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-task-checkpoints-")));
  cwd = path.join(root, "ws");
  baseDir = path.join(root, "home", "checkpoints");
  mkdirSync(cwd);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = call("attempt_completion", { result: "done" });

async function runTask(
  turns: ScriptedTurn[],
  lazyAboveFiles?: number,
  beforeReply?: (index: number) => void,
): Promise<{ events: AgentEvent[]; checkpoints: Checkpoints; requests: string[] }> {
  server = await startScriptedModelServer({
    responder: (_request, index) => {
      beforeReply?.(index);
      return turns[index] ?? turns[turns.length - 1]!;
    },
  });
  const checkpoints = await Checkpoints.open({ workspace: cwd, baseDir, ...(lazyAboveFiles !== undefined ? { lazyAboveFiles } : {}) });
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }) },
    tools: { list: allTools, scratchDir: path.join(root, "scratch") },
    workspace: { cwd, checkpoints },
    policy: { autoApprove: ["read", "edit", "all-commands"] },
  });
  const events: AgentEvent[] = [];
  const run = task.run("work");
  for (;;) {
    const next = await run.next();
    if (next.done) {
      expect(next.value.subtype, next.value.result).toBe("success");
      return { events, checkpoints, requests: server!.requests.map((r) => JSON.stringify(r.body)) };
    }
    events.push(next.value);
  }
}

const labels = (events: AgentEvent[]) => events.flatMap((e) => (e.type === "checkpoint" ? [e.label] : []));
const notices = (events: AgentEvent[]) => events.flatMap((e) => (e.type === "system" && e.subtype === "notice" ? [e.message] : []));

/** A file as a checkpoint holds it, read with git itself. */
function fileAt(checkpoints: Checkpoints, hash: string, file: string): string {
  return execFileSync("git", ["--git-dir", checkpoints.gitDir, "show", `${hash}:${file}`], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: "1" } });
}

describe("a task's checkpoints", () => {
  it("a step that changed nothing makes no checkpoint; one that did makes one", async () => {
    writeFileSync(path.join(cwd, "a.txt"), "same\n");
    const { events, checkpoints } = await runTask([
      call("write_to_file", { path: "a.txt", content: "same\n" }),
      call("execute_command", { command: "ls", requires_approval: false }),
      call("write_to_file", { path: "a.txt", content: "different\n" }),
      done,
    ]);
    expect(labels(events)).toEqual(["task start", "turn 3: write_to_file", "task completed"]);
    const made = events.flatMap((e) => (e.type === "checkpoint" ? [e] : []));
    // The end of the task is the same checkpoint as the last step: nothing changed in between.
    expect(made[2]!.hash).toBe(made[1]!.hash);
    // Each belongs to the point of the conversation where its step ended: request, then three replies and their results.
    expect(made.map((m) => m.message_index)).toEqual([1, 7, 9]);
    expect((await checkpoints.list()).map((c) => c.message)).toEqual(["turn 3: write_to_file", "task start"]);
  });

  it("a write waits for the baseline it can be undone to, also when that baseline was put off in a big workspace", async () => {
    for (let i = 0; i < 12; i++) writeFileSync(path.join(cwd, `f${i}.txt`), `original ${i}\n`);
    const { events, checkpoints } = await runTask(
      [call("read_file", { path: "f1.txt" }), call("write_to_file", { path: "f1.txt", content: "by the agent\n" }), done],
      10,
    );
    expect(notices(events)).toContain("checkpoints: 12 files here, more than checkpointsLazyAboveFiles; the first checkpoint is made before the first change");
    // The read ran before any checkpoint; the baseline came after it and before the write.
    const order = events.flatMap((e) => (e.type === "tool_call_update" && "content" in e ? [`result ${e.name}`] : e.type === "checkpoint" ? [`checkpoint ${e.label}`] : []));
    expect(order.slice(0, 3)).toEqual(["result read_file", "checkpoint task start", "result write_to_file"]);
    expect(labels(events)).toEqual(["task start", "turn 2: write_to_file", "task completed"]);
    const start = events.find((e) => e.type === "checkpoint" && e.label === "task start");
    expect(start?.type === "checkpoint" && fileAt(checkpoints, start.hash, "f1.txt")).toBe("original 1\n");
    // It stands where the task started (after the request), as a baseline made at once would.
    expect(start?.type === "checkpoint" && start.message_index).toBe(1);
    expect(readFileSync(path.join(cwd, "f1.txt"), "utf8")).toBe("by the agent\n");
  });

  it("a task that changes nothing in a big workspace makes no checkpoint at all", async () => {
    for (let i = 0; i < 12; i++) writeFileSync(path.join(cwd, `f${i}.txt`), `${i}\n`);
    const { events, checkpoints } = await runTask([call("read_file", { path: "f1.txt" }), done], 10);
    expect(labels(events)).toEqual([]);
    expect(await checkpoints.list()).toEqual([]);
  });

  it("says it is indexing when the first checkpoint holds many files", async () => {
    for (let i = 0; i < 1_020; i++) {
      if (i % 100 === 0) mkdirSync(path.join(cwd, `d${i / 100}`));
      writeFileSync(path.join(cwd, `d${Math.floor(i / 100)}`, `f${i}.txt`), `${i}\n`);
    }
    const { events } = await runTask([done]);
    expect(notices(events)).toContain("checkpoints: indexing 1,020 files…");
    expect(labels(events)).toEqual(["task start", "task completed"]);
  });

  it("a file the person changes while the agent reads is reported once, and recorded as a checkpoint of its own", async () => {
    writeFileSync(path.join(cwd, "a.txt"), "a\n");
    const { events, checkpoints, requests } = await runTask(
      [call("write_to_file", { path: "a.txt", content: "by the agent\n" }), call("read_file", { path: "a.txt" }), call("read_file", { path: "a.txt" }), done],
      undefined,
      (index) => {
        // While the model writes its second reply, the person edits a file the agent never touched.
        if (index === 1) writeFileSync(path.join(cwd, "notes.txt"), "the person's\n");
      },
    );
    expect(labels(events)).toEqual(["task start", "turn 1: write_to_file", "changes outside the agent", "task completed"]);
    expect(requests[2]).toContain("Files changed outside your tools");
    expect(requests[2]).toContain("added: notes.txt");
    // Said once: the next request carries the same note (in the history) and no second one.
    expect(requests[3]!.split("Files changed outside your tools").length - 1).toBe(1);
    const outside = events.find((e) => e.type === "checkpoint" && e.label === "changes outside the agent");
    expect(outside?.type === "checkpoint" && fileAt(checkpoints, outside.hash, "notes.txt")).toBe("the person's\n");
  });
});
