import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import { hookSandbox, on, type HookSandbox } from "../hooks/test-support.js";
import { createModel } from "../model/providers.js";
import { allTools } from "../tools/registry.js";
import { Task, type TaskOptions } from "./task.js";

/**
 * The task's hooks are one list (a program's, then the shell hooks of settings) behind one interface:
 * a real Task, real hook scripts, the scripted model server.
 */
let box: HookSandbox;
let server: ScriptedModelServer;

beforeEach(async () => {
  box = await hookSandbox();
});
afterEach(async () => {
  await server?.close();
  await box.cleanup();
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

async function run(turns: ScriptedTurn[], options: Pick<TaskOptions, "hooks" | "host" | "policy">): Promise<AgentEvent[]> {
  server = await startScriptedModelServer({ turns });
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }), retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    tools: { list: allTools },
    workspace: { cwd: box.cwd },
    ...options,
  });
  const events: AgentEvent[] = [];
  const generator = task.run("write the file");
  for (let next = await generator.next(); !next.done; next = await generator.next()) events.push(next.value);
  return events;
}

/** What the model read as the result of its call (the second request's last tool_result). */
function toolResultSeen(): string {
  const messages = server.requests[1]!.body.messages as Array<{ content: unknown }>;
  const blocks = messages.at(-1)!.content as Array<{ type: string; content: unknown }>;
  const result = blocks.find((b) => b.type === "tool_result")!;
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
}

it("a program's hook and the shell hooks run in order on one call: the shell hook reads the rewrite, both contexts reach the model", async () => {
  const pre = await box.script("pre.sh", `cat > hooks/pre-stdin.json; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"shell context"}}'`);
  await box.settings("project", { PreToolUse: on(pre, { matcher: "write_to_file" }) });
  const events = await run([call("write_to_file", { path: "out.txt", content: "from the model\n" }), call("attempt_completion", { result: "done" })], {
    policy: { autoApprove: ["read", "edit"] },
    hooks: {
      runner: box.load().runner,
      loop: { beforeTool: (c) => (c.name === "write_to_file" ? { input: { ...c.input, content: "from the program\n" }, context: "program context" } : undefined) },
    },
  });
  expect(readFileSync(path.join(box.cwd, "out.txt"), "utf8")).toBe("from the program\n");
  const stdin = JSON.parse(await box.read("hooks/pre-stdin.json")) as { tool_input: { content: string } };
  expect(stdin.tool_input.content).toBe("from the program\n");
  expect(toolResultSeen()).toContain("program context\nshell context");
  expect(events.filter((e) => e.type === "tool_call_update" && e.name === "write_to_file").at(-1)).toMatchObject({ status: "completed" });
});

it("a program's deny stops the call before any shell hook runs; without it, the same call runs the shell hook and writes", async () => {
  const pre = await box.script("pre.sh", `cat > /dev/null; echo ran >> hooks/pre-ran.log`);
  await box.settings("project", { PreToolUse: on(pre, { matcher: "write_to_file" }) });
  const turns = [call("write_to_file", { path: "out.txt", content: "x\n" }), call("attempt_completion", { result: "done" })];
  await run(turns, { policy: { autoApprove: ["read", "edit"] }, hooks: { runner: box.load().runner, loop: { beforeTool: () => ({ deny: "not today" }) } } });
  expect(() => readFileSync(path.join(box.cwd, "out.txt"))).toThrow();
  expect(() => readFileSync(path.join(box.cwd, "hooks/pre-ran.log"))).toThrow();
  expect(toolResultSeen()).toContain("Blocked by a hook: not today");

  // Positive control: the same call with no program hook.
  await server.close();
  await run(turns, { policy: { autoApprove: ["read", "edit"] }, hooks: { runner: box.load().runner } });
  expect(readFileSync(path.join(box.cwd, "out.txt"), "utf8")).toBe("x\n");
  expect(await box.read("hooks/pre-ran.log")).toBe("ran\n");
});

it("Notification hooks run when the person is asked to approve, and their message goes out as a notice", async () => {
  const notify = await box.script("notify.sh", `cat > hooks/notify-stdin.json; printf '%s' '{"systemMessage":"pinged the person"}'`);
  await box.settings("project", { Notification: on(notify) });
  const events = await run([call("write_to_file", { path: "out.txt", content: "x\n" }), call("attempt_completion", { result: "done" })], {
    policy: { autoApprove: [] },
    host: { approve: async () => ({ approved: true }) },
    hooks: { runner: box.load().runner },
  });
  const stdin = JSON.parse(await box.read("hooks/notify-stdin.json")) as Record<string, unknown>;
  expect(stdin).toMatchObject({ hook_event_name: "Notification", notification_type: "permission_prompt" });
  expect(events).toContainEqual(expect.objectContaining({ type: "system", subtype: "notice", message: expect.stringContaining("pinged the person") }));
  expect(readFileSync(path.join(box.cwd, "out.txt"), "utf8")).toBe("x\n");
});
