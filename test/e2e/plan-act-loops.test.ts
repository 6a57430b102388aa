import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.workspace.dir, "app.js"), "console.log('v1');\n");
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const args = (...rest: string[]) => ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", ...rest];
const plan = "1. Change the log line in app.js to v2.";

describe("Plan mode", () => {
  it("refuses a write whatever the model tries, then presents the plan and exits 3", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "app.js", content: "hacked" }), call("read_file", { path: "app.js" }), call("plan_mode_respond", { response: plan })],
    });
    const run = await runCairn(args("--mode", "plan", "--auto-approve", "read,edit", "update the log line"), { env: env() });
    expect(run.code, run.stderr).toBe(3);
    expect(readFileSync(path.join(fx.workspace.dir, "app.js"), "utf8")).toBe("console.log('v1');\n");
    const init = run.events[0]!;
    expect(init.mode).toBe("plan");
    expect(init.tools).not.toContain("write_to_file");
    expect(init.tools).toContain("plan_mode_respond");
    expect(run.events.find((e) => e.type === "tool_call_update" && "content" in e)).toMatchObject({ name: "write_to_file", status: "denied", content: expect.stringContaining("not available in PLAN mode") });
    expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "needs_input", plan });
    expect(JSON.stringify(fx.server.requests[0]!.body.system)).toContain("PLAN mode");
  });

  it("keeps exploring when the model says it needs more", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("plan_mode_respond", { response: "Looking further", needs_more_exploration: true }), call("plan_mode_respond", { response: plan })],
    });
    const run = await runCairn(args("--mode", "plan", "plan it"), { env: env() });
    expect(run.code).toBe(3);
    expect(fx.server.requests).toHaveLength(2);
  });

  it("with --yolo, an approved plan switches to Act and the task goes on to completion", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        call("plan_mode_respond", { response: plan }),
        call("write_to_file", { path: "app.js", content: "console.log('v2');\n" }),
        call("attempt_completion", { result: "Updated app.js" }),
      ],
    });
    const run = await runCairn(args("--mode", "plan", "--yolo", "update the log line"), { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "app.js"), "utf8")).toBe("console.log('v2');\n");
    expect(run.events.find((e) => e.type === "system" && e.subtype === "mode")).toMatchObject({ mode: "act" });
    // The second request is in Act mode: the write tool is offered and the prompt says so.
    const second = fx.server.requests[1]!.body as { system: unknown; tools: Array<{ name: string }> };
    expect(second.tools.map((t) => t.name)).toContain("write_to_file");
    expect(JSON.stringify(second.system)).toContain("ACT mode");
    expect(JSON.stringify(second)).toContain("approved your plan");
  });
});

describe("Act mode narration", () => {
  it("refuses a second act_mode_respond in a row", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("act_mode_respond", { response: "Starting" }), call("act_mode_respond", { response: "Still starting" }), call("attempt_completion", { result: "ok" })],
    });
    const run = await runCairn(args("go"), { env: env() });
    expect(run.code).toBe(0);
    expect(run.events.filter((e) => e.type === "tool_call_update" && "content" in e).map((e) => e.status)).toEqual(["completed", "denied", "completed"]);
  });
});

describe("loop detection", () => {
  it("warns the model at the 3rd identical call and stops the run at the 5th (exit 1)", async () => {
    fx.server = await startScriptedModelServer({ responder: () => call("read_file", { path: "app.js" }) });
    const run = await runCairn(args("read it"), { env: env() });
    expect(run.code).toBe(1);
    expect(fx.server.requests).toHaveLength(5);
    expect(JSON.stringify(fx.server.requests[2]!.body)).not.toContain("Loop warning");
    expect(JSON.stringify(fx.server.requests[3]!.body)).toContain("Loop warning");
    expect(run.events.at(-1)).toMatchObject({ subtype: "error_loop_detected", is_error: true, result: expect.stringContaining("5 times in a row") });
    expect(existsSync(path.join(fx.workspace.dir, "app.js"))).toBe(true);
  });
});
