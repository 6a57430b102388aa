import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";

let workspace: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: ScriptedModelServer | undefined;

beforeEach(() => {
  workspace = tempDir("ws");
  home = tempDir("home");
  writeFileSync(path.join(workspace.dir, "app.js"), "console.log('v1');\n");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  workspace.cleanup();
  home.cleanup();
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir });
const args = (...rest: string[]) => ["run", "--provider", "anthropic", "--base-url", server!.url, "--cwd", workspace.dir, "--json", ...rest];
const plan = "1. Change the log line in app.js to v2.";

describe("Plan mode", () => {
  it("refuses a write whatever the model tries, then presents the plan and exits 3", async () => {
    server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "app.js", content: "hacked" }), call("read_file", { path: "app.js" }), call("plan_mode_respond", { response: plan })],
    });
    const run = await runCairn(args("--mode", "plan", "--auto-approve", "read,edit", "update the log line"), { env: env() });
    expect(run.code, run.stderr).toBe(3);
    expect(readFileSync(path.join(workspace.dir, "app.js"), "utf8")).toBe("console.log('v1');\n");
    const init = run.events[0]!;
    expect(init.mode).toBe("plan");
    expect(init.tools).not.toContain("write_to_file");
    expect(init.tools).toContain("plan_mode_respond");
    expect(run.events.find((e) => e.type === "tool_result")).toMatchObject({ name: "write_to_file", status: "denied", content: expect.stringContaining("not available in PLAN mode") });
    expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "needs_input", plan });
    expect(JSON.stringify(server.requests[0]!.body.system)).toContain("PLAN mode");
  });

  it("keeps exploring when the model says it needs more", async () => {
    server = await startScriptedModelServer({
      turns: [call("plan_mode_respond", { response: "Looking further", needs_more_exploration: true }), call("plan_mode_respond", { response: plan })],
    });
    const run = await runCairn(args("--mode", "plan", "plan it"), { env: env() });
    expect(run.code).toBe(3);
    expect(server.requests).toHaveLength(2);
  });

  it("with --yolo, an approved plan switches to Act and the task goes on to completion", async () => {
    server = await startScriptedModelServer({
      turns: [
        call("plan_mode_respond", { response: plan }),
        call("write_to_file", { path: "app.js", content: "console.log('v2');\n" }),
        call("attempt_completion", { result: "Updated app.js" }),
      ],
    });
    const run = await runCairn(args("--mode", "plan", "--yolo", "update the log line"), { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(workspace.dir, "app.js"), "utf8")).toBe("console.log('v2');\n");
    expect(run.events.find((e) => e.type === "system" && e.subtype === "mode")).toMatchObject({ mode: "act" });
    // The second request is in Act mode: the write tool is offered and the prompt says so.
    const second = server.requests[1]!.body as { system: unknown; tools: Array<{ name: string }> };
    expect(second.tools.map((t) => t.name)).toContain("write_to_file");
    expect(JSON.stringify(second.system)).toContain("ACT mode");
    expect(JSON.stringify(second)).toContain("approved your plan");
  });
});

describe("Act mode narration", () => {
  it("refuses a second act_mode_respond in a row", async () => {
    server = await startScriptedModelServer({
      turns: [call("act_mode_respond", { response: "Starting" }), call("act_mode_respond", { response: "Still starting" }), call("attempt_completion", { result: "ok" })],
    });
    const run = await runCairn(args("go"), { env: env() });
    expect(run.code).toBe(0);
    expect(run.events.filter((e) => e.type === "tool_result").map((e) => e.status)).toEqual(["done", "denied", "done"]);
  });
});

describe("loop detection", () => {
  it("warns the model at the 3rd identical call and stops the run at the 5th (exit 1)", async () => {
    server = await startScriptedModelServer({ responder: () => call("read_file", { path: "app.js" }) });
    const run = await runCairn(args("read it"), { env: env() });
    expect(run.code).toBe(1);
    expect(server.requests).toHaveLength(5);
    expect(JSON.stringify(server.requests[2]!.body)).not.toContain("Loop warning");
    expect(JSON.stringify(server.requests[3]!.body)).toContain("Loop warning");
    expect(run.events.at(-1)).toMatchObject({ subtype: "error_loop_detected", is_error: true, result: expect.stringContaining("5 times in a row") });
    expect(existsSync(path.join(workspace.dir, "app.js"))).toBe(true);
  });
});
