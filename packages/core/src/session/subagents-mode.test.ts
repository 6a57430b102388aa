import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import { createModel } from "../model/providers.js";
import type { Mode } from "../policy/mode.js";
import { Task } from "../runtime/task.js";
import { subagentRunner } from "./subagents.js";

/**
 * A sub-agent never has more than the mode of the task that started it, also when the person
 * switches that task to PLAN mode while the sub-agent works: its next edit is refused. A real
 * sub-agent Task through the session's runner, against the scripted model.
 */

let server: ScriptedModelServer | undefined;
let ws: string;

beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-subagent-mode-")));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(ws, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

async function runWriter(switchToPlan: boolean) {
  let mode: Mode = "act";
  const turns = [call("write_to_file", { path: "a.txt", content: "A\n" }), call("write_to_file", { path: "b.txt", content: "B\n" }), call("attempt_completion", { result: "REPORT" })];
  server = await startScriptedModelServer({
    responder: (_request, index) => {
      // The person switches the parent to PLAN while the model writes the second edit.
      if (switchToPlan && index === 1) mode = "plan";
      return turns[index]!;
    },
  });
  const runner = subagentRunner({
    agents: [{ name: "writer", description: "writes", tools: ["Write"], instructions: "", file: "writer.md" }],
    budgetLeft: () => undefined,
    rules: { rules: [] },
    mode: () => mode,
    open: async (spec) => ({
      id: "sub",
      task: new Task({ model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server!.url }) }, tools: { list: spec.tools }, workspace: { cwd: ws, environmentDetails: false }, policy: { autoApprove: ["read", "edit"] } }),
      close: async () => {},
    }),
  });
  const outcome = await runner.run({ prompts: ["write both"], agent: "writer", parentToolUseId: "toolu_parent", signal: new AbortController().signal, emit: () => undefined });
  const told = JSON.stringify(server.requests[2]!.body.messages);
  return { outcome, told };
}

describe("a sub-agent held to its parent's mode as it changes", () => {
  it("the parent switched to PLAN mid-run: the sub-agent's next edit is refused and it is told why; the one before stays", async () => {
    const { outcome, told } = await runWriter(true);
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("A\n");
    expect(existsSync(path.join(ws, "b.txt"))).toBe(false);
    expect(told).toContain("write_to_file was not run: the task that started you switched to PLAN mode");
    expect(outcome).toMatchObject({ ok: true, reports: [{ ok: true, report: "REPORT" }] });
  });

  it("a control: the parent stays in ACT, both edits land", async () => {
    await runWriter(false);
    expect(readFileSync(path.join(ws, "b.txt"), "utf8")).toBe("B\n");
  });
});
