import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { conversationRouter, firstMessageText } from "../support/conversation-router.js";
import { callIdOf } from "../support/tool-call-events.js";

/**
 * Sub-agents and hand-offs never have more power than the task that starts them: a parent in PLAN
 * mode (read-only) cannot get a file written or a command run by starting a sub-agent whose
 * definition lists Write and Bash, nor by handing over to a fresh task. Each attack has its
 * positive control: the same in ACT mode does what it asks.
 */

const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
  // The person's own agent definition (CAIRN_HOME/agents: no trust needed) that lists every power.
  mkdirSync(path.join(fx.home.dir, "agents"));
  writeFileSync(path.join(fx.home.dir, "agents", "builder.md"), "---\nname: builder\ndescription: Builds things\ntools: Read, Write, Edit, Bash\n---\nDo what you are asked.\n");
});

const call = (name: string, input: Record<string, unknown>, id?: string): ScriptedTurn => ({ content: [{ type: "tool_use", name, input, ...(id ? { id } : {}) }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const cairn = (...args: string[]) => runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", ...args], { env: env() });
const toolNames = (r: RecordedRequest) => ((r.body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name).sort();
const requestsOf = (key: string) => fx.server.requests.filter((r) => firstMessageText(r).includes(key));
const endOf = (run: { events: Array<Record<string, unknown>> }, id: string) => run.events.find((e) => e.type === "tool_call_update" && e.tool_use_id === id && "content" in e)!;
type Meta = { id: string; mode: string; parent?: { relation: string } };
const tasks = (): Meta[] =>
  readdirSync(path.join(fx.home.dir, "tasks"))
    .filter((n) => n !== "index.json")
    .map((id) => JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", id, "metadata.json"), "utf8")) as Meta);

/** The parent starts one `builder` sub-agent, which writes a file and runs a command that leaves a marker. */
function builderScript(parentEnd: ScriptedTurn[]) {
  return conversationRouter({
    "PARENT-TASK": [call("use_subagents", { prompts: ["SUB-BUILDER: write the files"], agent: "builder" }, "toolu_builder"), ...parentEnd],
    "SUB-BUILDER": [
      call("write_to_file", { path: "written.txt", content: "by a sub-agent\n" }),
      call("execute_command", { command: "echo ran > marker.txt", requires_approval: false }),
      call("attempt_completion", { result: "BUILDER-REPORT" }),
    ],
  });
}

describe("sub-agents never exceed the parent's mode", () => {
  it("a PLAN-mode parent (--yolo even) starts a definition listing Write/Bash: the sub-agent is offered only reading tools, nothing is written, no command runs", async () => {
    const router = builderScript([call("plan_mode_respond", { response: "PLAN: nothing to change" }), call("attempt_completion", { result: "done" })]);
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const run = await cairn("--mode", "plan", "--yolo", "PARENT-TASK: look");
    expect(run.code, run.stderr).toBe(0);

    const sub = requestsOf("SUB-BUILDER")[0]!;
    expect(toolNames(sub)).toEqual(["attempt_completion", "read_file"]);
    expect(JSON.stringify(sub.body.system)).toContain("PLAN mode");
    expect(existsSync(path.join(fx.workspace.dir, "written.txt"))).toBe(false);
    expect(existsSync(path.join(fx.workspace.dir, "marker.txt"))).toBe(false);
    // The sub-agent's model was told each call is not available; the parent got its report.
    expect(JSON.stringify(requestsOf("SUB-BUILDER")[1]!.body.messages)).toContain('There is no tool named \\"write_to_file\\"');
    expect(String(endOf(run, callIdOf(run.events, "use_subagents")).content), `${run.stderr}\n${JSON.stringify(run.events.filter((e) => e.type === "subagent"))}`).toContain("BUILDER-REPORT");
  });

  it("a control: the same from an ACT-mode parent (--yolo) writes the file and runs the command", async () => {
    const router = builderScript([call("attempt_completion", { result: "done" })]);
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const run = await cairn("--mode", "act", "--yolo", "PARENT-TASK: build");
    expect(run.code, run.stderr).toBe(0);
    expect(toolNames(requestsOf("SUB-BUILDER")[0]!)).toEqual(["attempt_completion", "execute_command", "read_file", "replace_in_file", "write_to_file"]);
    expect(readFileSync(path.join(fx.workspace.dir, "written.txt"), "utf8")).toBe("by a sub-agent\n");
    expect(readFileSync(path.join(fx.workspace.dir, "marker.txt"), "utf8").trim()).toBe("ran");
  });

  it("the parent's approvals bind the sub-agent: in ACT mode without --yolo (edits auto-approved, commands not) its write lands and its command is refused", async () => {
    const router = builderScript([call("attempt_completion", { result: "done" })]);
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const run = await cairn("--auto-approve", "read,edit", "PARENT-TASK: build");
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "written.txt"), "utf8")).toBe("by a sub-agent\n");
    expect(existsSync(path.join(fx.workspace.dir, "marker.txt"))).toBe(false);
  });
});

describe("sub-agents get the parent's settings as decided for it", () => {
  /** The person's settings.json auto-approves reads and edits; `widen`: rewritten, as the parent's first reply comes, to auto-approve commands too. */
  async function run(widen: boolean, initial: string[]) {
    const settings = path.join(fx.home.dir, "settings.json");
    writeFileSync(settings, JSON.stringify({ checkpoints: false, autoApprove: initial }));
    const router = builderScript([call("attempt_completion", { result: "done" })]);
    fx.server = await startScriptedModelServer({
      responder: (request, index) => {
        if (widen && index === 0) writeFileSync(settings, JSON.stringify({ checkpoints: false, autoApprove: ["read", "edit", "all-commands"] }));
        return router.responder(request, index);
      },
    });
    return await cairn("PARENT-TASK: build");
  }

  it("settings.json widened while the parent runs (commands auto-approved): its sub-agent still has the parent's approvals, so its command is refused", async () => {
    const result = await run(true, ["read", "edit"]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "written.txt"), "utf8")).toBe("by a sub-agent\n");
    expect(existsSync(path.join(fx.workspace.dir, "marker.txt"))).toBe(false);
  });

  it("a control: with commands auto-approved for the parent from the start, the sub-agent's command runs", async () => {
    const result = await run(false, ["read", "edit", "all-commands"]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "marker.txt"), "utf8").trim()).toBe("ran");
  });
});

describe("hand-offs never exceed the parent's mode", () => {
  it("new_task from a PLAN-mode task opens the fresh task in PLAN mode: it is offered no edit tools and its write does not happen", async () => {
    const router = conversationRouter({
      "PARENT-TASK": [call("new_task", { context: "HANDOFF-CONTEXT: write handed.txt" })],
      "HANDOFF-CONTEXT": [call("write_to_file", { path: "handed.txt", content: "x\n" }), call("plan_mode_respond", { response: "PLAN: write handed.txt" })],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const run = await cairn("--mode", "plan", "--auto-approve", "read,edit", "PARENT-TASK: look");
    // The fresh task ends proposing its plan (needs input: nobody approves plans here).
    expect(run.code, run.stderr).toBe(3);
    expect(toolNames(requestsOf("HANDOFF-CONTEXT")[0]!)).not.toContain("write_to_file");
    expect(existsSync(path.join(fx.workspace.dir, "handed.txt"))).toBe(false);
    expect(tasks().find((t) => t.parent?.relation === "handoff")?.mode).toBe("plan");
  });

  it("a control: new_task from an ACT-mode task writes in the fresh task", async () => {
    const router = conversationRouter({
      "PARENT-TASK": [call("new_task", { context: "HANDOFF-CONTEXT: write handed.txt" })],
      "HANDOFF-CONTEXT": [call("write_to_file", { path: "handed.txt", content: "x\n" }), call("attempt_completion", { result: "done" })],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const run = await cairn("--auto-approve", "read,edit", "PARENT-TASK: go");
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "handed.txt"), "utf8")).toBe("x\n");
    expect(tasks().find((t) => t.parent?.relation === "handoff")?.mode).toBe("act");
  });
});
