import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { conversationRouter } from "../../../../test/support/conversation-router.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import { createModel } from "../model/providers.js";
import type { AgentDefinition } from "../prompt/agent-definitions.js";
import { Task } from "../runtime/task.js";
import { allTools } from "../tools/registry.js";
import { useSubagentsTool } from "../tools/use-subagents.js";
import { readOnlySubagents, subagentRunner } from "./subagents.js";

/**
 * use_subagents is a read when its sub-agents only read: then it runs beside the other reads of its
 * reply. An agent definition may give them edit tools: then the call waits its turn like an edit,
 * so a read after it in the same reply sees what the sub-agents wrote. A real parent Task, real
 * sub-agent Tasks through the session's runner, and the scripted model for every conversation.
 */

let server: ScriptedModelServer | undefined;
let ws: string;

beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-subagent-sched-")));
  writeFileSync(path.join(ws, "notes.txt"), "NOTES\n");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(ws, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>, extra: Partial<ScriptedTurn> = {}): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], ...extra });
const definition = (name: string, tools: string[]): AgentDefinition => ({ name, description: `${name} agent`, tools, instructions: "", file: `${name}.md` });

/** One parent reply: use_subagents (as `agent`), then a read of out.txt; the sub-agent's model answers after a pause. */
async function run(agent: string | undefined, subTurns: ScriptedTurn[]) {
  const model = () => createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server!.url });
  const router = conversationRouter({
    "PARENT-TASK": [
      { content: [{ type: "tool_use", name: "use_subagents", input: { prompts: ["SUB-TASK: do it"], ...(agent ? { agent } : {}) } }, { type: "tool_use", name: "read_file", input: { path: "out.txt" } }] },
      call("attempt_completion", { result: "done" }),
    ],
    "SUB-TASK": subTurns,
  });
  server = await startScriptedModelServer({ responder: router.responder });
  const agents = [definition("writer", ["Write"]), definition("scout", ["Read", "Grep"])];
  const runner = subagentRunner({
    agents,
    budgetLeft: () => undefined,
    rules: { rules: [] },
    mode: () => "act",
    open: async (spec) => ({
      id: `sub-${spec.prompt}`,
      task: new Task({ model: { main: model() }, tools: { list: spec.tools }, workspace: { cwd: ws, environmentDetails: false }, policy: { autoApprove: ["read", "edit"] } }),
      close: async () => {},
    }),
  });
  const tools = [...allTools, useSubagentsTool(agents.map((a) => ({ ...a, readOnly: readOnlySubagents(a) })))];
  const task = new Task({
    model: { main: model() },
    tools: { list: tools, subagents: runner },
    workspace: { cwd: ws, environmentDetails: false },
    policy: { autoApprove: ["read"] },
  });
  const events: AgentEvent[] = [];
  const gen = task.run("PARENT-TASK: go");
  for (let next = await gen.next(); !next.done; next = await gen.next()) events.push(next.value);
  const ends = events.flatMap((e) => (e.type === "tool_call_update" && (e.status === "completed" || e.status === "failed") ? [{ name: e.name, status: e.status, content: String(e.content ?? "") }] : []));
  // Where each call started running and ended: ends are announced in the reply's order (each once
  // it is in the journal), so overlap shows as a call starting before the one ahead of it ended.
  const at = (name: string, status: string) => events.findIndex((e) => e.type === "tool_call_update" && e.name === name && e.status === status);
  return { ends, at };
}

describe("use_subagents beside the reads of its reply", () => {
  it("a definition whose sub-agents may edit runs alone: the read after it sees the file they wrote", async () => {
    const { ends, at } = await run("writer", [call("write_to_file", { path: "out.txt", content: "WRITTEN BY SUB-AGENT\n" }, { delayMs: 300 }), call("attempt_completion", { result: "wrote out.txt" })]);
    expect(ends.map((e) => e.name)).toEqual(["use_subagents", "read_file", "attempt_completion"]);
    expect(at("read_file", "running")).toBeGreaterThan(at("use_subagents", "completed"));
    expect(ends.find((e) => e.name === "read_file")).toMatchObject({ status: "completed", content: expect.stringContaining("WRITTEN BY SUB-AGENT") });
    expect(readFileSync(path.join(ws, "out.txt"), "utf8")).toBe("WRITTEN BY SUB-AGENT\n");
  });

  it("read-only sub-agents (the default, or a definition of read tools) run beside the read, which starts before they end", async () => {
    for (const agent of [undefined, "scout"]) {
      writeFileSync(path.join(ws, "out.txt"), "ALREADY THERE\n");
      const { ends, at } = await run(agent, [call("read_file", { path: "notes.txt" }, { delayMs: 300 }), call("attempt_completion", { result: "NOTES read" })]);
      expect(ends.map((e) => e.name), String(agent)).toEqual(["use_subagents", "read_file", "attempt_completion"]);
      expect(at("read_file", "running"), String(agent)).toBeLessThan(at("use_subagents", "completed"));
      expect(ends.find((e) => e.name === "use_subagents")!.content).toContain("NOTES read");
      await server?.close();
      server = undefined;
    }
  });

  it("the tool decides per call from its input: the default and read-only definitions are reads, others and unknown names are not", () => {
    const tool = useSubagentsTool([definition("writer", ["Write"]), definition("scout", ["Read"]), definition("runner", ["Bash"]), definition("browser", ["browser_action"])].map((a) => ({ ...a, readOnly: readOnlySubagents(a) })));
    const readOnly = (agent?: string) => tool.readOnlyFor!(agent === undefined ? { prompts: ["x"] } : { prompts: ["x"], agent });
    expect([readOnly(), readOnly("scout")]).toEqual([true, true]);
    expect([readOnly("writer"), readOnly("runner"), readOnly("browser"), readOnly("nobody")]).toEqual([false, false, false, false]);
    // A listing that does not say (an embedder's own) is taken as able to change things.
    expect(useSubagentsTool([{ name: "x", description: "x" }]).readOnlyFor!({ prompts: ["p"], agent: "x" })).toBe(false);
  });
});
