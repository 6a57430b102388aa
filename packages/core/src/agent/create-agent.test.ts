import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import type { CommandExecutor } from "../terminal/command-executor.js";
import { createAgent } from "./create-agent.js";
import type { AgentConfig, AgentSnapshot } from "./agent-types.js";

let root: string;
let workspace: string;
let server: ScriptedModelServer | undefined;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-agent-")));
  workspace = path.join(root, "ws");
  mkdirSync(workspace);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = (result: string) => call("attempt_completion", { result });

async function configFor(turns: ScriptedTurn[], extra: Partial<AgentConfig> = {}): Promise<AgentConfig> {
  server = await startScriptedModelServer({ turns });
  return {
    cwd: workspace,
    env: { PATH: process.env.PATH, HOME: root, CAIRN_HOME: path.join(root, "home"), ANTHROPIC_API_KEY: "k", CAIRN_BASE_URL: server.url },
    overrides: { autoApprove: ["read", "edit", "safe-commands"], checkpoints: false },
    ...extra,
  };
}

/** A real executor for a "remote" checkout: the workspace path maps to another folder, where a shell runs the command. */
function folderExecutor(remote: string, seen: string[], during?: () => void | Promise<void>): CommandExecutor {
  return {
    async run(request) {
      seen.push(request.command);
      await during?.();
      const cwd = request.cwd.replace(workspace, remote);
      return await new Promise((resolve, reject) => {
        const child = spawn("/bin/sh", ["-c", request.command], { cwd, env: { PATH: process.env.PATH, ...request.env }, signal: request.signal });
        child.stdout.on("data", (d: Buffer) => request.onOutput(d.toString()));
        child.stderr.on("data", (d: Buffer) => request.onOutput(d.toString()));
        child.on("error", reject);
        child.on("close", (code, signal) => resolve({ exitCode: code, signal }));
      });
    },
  };
}

it("hooks run as lists in order: beforeModel and beforeTool pass their output on, the first deny decides, afterRun sees the result", async () => {
  const order: string[] = [];
  const config = await configFor([call("write_to_file", { path: "a.txt", content: "from the model\n" }), call("write_to_file", { path: "b.txt", content: "x\n" }), done("ok")], {
    hooks: {
      beforeRun: [({ text }) => ({ text: `${text} (first)` }), ({ text }) => ({ text: `${text} (second)` })],
      beforeModel: [(r) => ({ ...r, system: `${r.system}\nMARK-ONE` }), (r) => ({ ...r, system: `${r.system}\nMARK-TWO` })],
      beforeTool: [
        (c) => (c.name === "write_to_file" && c.input.path === "a.txt" ? { input: { ...c.input, content: "rewritten\n" } } : undefined),
        (c) => {
          order.push(`second saw ${String(c.input.content)}`);
          return c.input.path === "b.txt" ? { deny: "no b here" } : undefined;
        },
        () => {
          order.push("third");
        },
      ],
      afterTool: [(_c, r) => ({ ...r, content: `${String(r.content)} [one]` }), (_c, r) => ({ ...r, content: `${String(r.content)} [two]` })],
      afterRun: [(result) => void order.push(`after ${result.subtype}`)],
    },
  });
  const agent = createAgent(config);
  const result = await agent.run("Go");
  await agent.close();
  expect(result.subtype).toBe("success");
  expect(readFileSync(path.join(workspace, "a.txt"), "utf8")).toBe("rewritten\n");
  expect(existsSync(path.join(workspace, "b.txt"))).toBe(false);
  // attempt_completion passes the hooks too (it has no content).
  expect(order).toEqual(["second saw rewritten\n", "third", "second saw x\n", "second saw undefined", "third", "after success"]);
  const first = server!.requests[0]!.body as { system: Array<{ text: string }> | string };
  expect(JSON.stringify(first.system)).toMatch(/MARK-ONE\\nMARK-TWO/);
  expect(JSON.stringify(server!.requests[0]!.body)).toContain("Go (first) (second)");
  expect(JSON.stringify(server!.requests[1]!.body)).toContain("[one] [two]");
  expect(JSON.stringify(server!.requests[2]!.body)).toContain("no b here");
});

it("the host's command executor runs execute_command in its own place, not the local workspace; without one the command runs here", async () => {
  const remote = path.join(root, "remote");
  mkdirSync(remote);
  const seen: string[] = [];
  const turns = [call("execute_command", { command: "echo made > where.txt && pwd", requires_approval: false }), done("ran")];
  const config = await configFor(turns, { executors: { commands: folderExecutor(remote, seen) } });
  const events: AgentEvent[] = [];
  const agent = createAgent(config);
  agent.subscribe((e) => events.push(e));
  expect((await agent.run("Run it")).subtype).toBe("success");
  await agent.close();
  expect(seen).toEqual(["echo made > where.txt && pwd"]);
  expect(readFileSync(path.join(remote, "where.txt"), "utf8")).toBe("made\n");
  expect(existsSync(path.join(workspace, "where.txt"))).toBe(false);
  expect(JSON.stringify(server!.requests[1]!.body)).toContain(remote);
  const init = events.find((e) => e.type === "system" && e.subtype === "init");
  expect(init).toMatchObject({ sandbox: { mode: "off", reason: "commands run on the host's executor" } });

  // Positive control: the same call without an executor runs in the workspace.
  await server!.close();
  const local = createAgent(await configFor(turns));
  expect((await local.run("Run it")).subtype).toBe("success");
  await local.close();
  expect(readFileSync(path.join(workspace, "where.txt"), "utf8")).toBe("made\n");
});

it("snapshot while a call runs shows it in flight; abort ends the run; restore takes the task up in a new agent with its parent id", async () => {
  let during: AgentSnapshot | undefined;
  const agentRef: { current?: ReturnType<typeof createAgent> } = {};
  const seen: string[] = [];
  const executor = folderExecutor(workspace, seen, () => {
    during = agentRef.current!.snapshot();
    agentRef.current!.abort();
  });
  const config = await configFor([call("execute_command", { command: "sleep 5", requires_approval: false }), done("finished after all")], {
    executors: { commands: executor },
    parentId: "parent-task",
  });
  const agent = createAgent(config);
  agentRef.current = agent;
  const result = await agent.run("Wait a while");
  expect(result.subtype).toBe("error_aborted");
  expect(during).toMatchObject({ status: "running", iteration: 1, parentId: "parent-task", pendingToolCalls: [{ name: "execute_command", status: "running", input: { command: "sleep 5" } }] });
  const after = agent.snapshot();
  expect(after).toMatchObject({ status: "aborted", pendingToolCalls: [], id: result.session_id });
  await agent.close();

  const again = createAgent({ ...config, parentId: undefined });
  await again.restore(JSON.parse(JSON.stringify(after)) as AgentSnapshot);
  expect(again.id).toBe(result.session_id);
  expect(again.snapshot()).toMatchObject({ parentId: "parent-task", status: "aborted", iteration: after.iteration, messages: after.messages });
  const more = await again.continue("Go on");
  await again.close();
  expect(more).toMatchObject({ subtype: "success", result: "finished after all", session_id: result.session_id });
  expect(JSON.stringify(server!.requests[1]!.body)).toContain("Wait a while");
  expect(again.snapshot().iteration).toBe(after.iteration + 1);
  // The stopped call's result was kept: the model reads that it was interrupted.
  expect(JSON.stringify(server!.requests.at(-1)!.body)).toContain("Interrupted after");
});

it("continue before any run, and restore of a snapshot taken before the first run, say what to do instead", async () => {
  const agent = createAgent(await configFor([]));
  await expect(agent.continue("more")).rejects.toThrow(/call run first/);
  await expect(agent.restore(agent.snapshot())).rejects.toThrow(/call run instead/);
});
