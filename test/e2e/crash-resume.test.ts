import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, startCairn, xmlCall } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const isEvent = (type: string, extra: (e: Record<string, unknown>) => boolean = () => true) => (line: string) => {
  try {
    const event = JSON.parse(line) as Record<string, unknown>;
    return event.type === type && extra(event);
  } catch {
    return false;
  }
};
const taskId = () => readdirSync(path.join(fx.home.dir, "tasks")).find((n) => n !== "index.json")!;

describe("kill -9, then cairn resume", () => {
  it("mid-stream, after a tool in the reply already ran: the model is told what ran, and the task completes", async () => {
    const slowTail = "Now I keep talking for a while before the next step. ".repeat(40);
    fx.server = await startScriptedModelServer({
      turns: [
        // A block with file text runs once the next block starts (or the reply ends), when nothing after it can show it was cut short.
        { content: [{ type: "text", text: `${xmlCall("write_to_file", { path: "a.txt", content: "first" })}\n${xmlCall("read_file", { path: "a.txt" })}\n${slowTail}` }], chunkSize: 10, chunkDelayMs: 20 },
        { content: [{ type: "text", text: xmlCall("write_to_file", { path: "b.txt", content: "second" }) }] },
        { content: [{ type: "text", text: xmlCall("attempt_completion", { result: "both written" }) }] },
      ],
    });
    const args = ["--provider", "anthropic", "--base-url", fx.server.url, "--protocol", "xml", "--auto-approve", "edit"];
    const cairn = startCairn(["run", ...args, "--cwd", fx.workspace.dir, "--json", "write a and b"], { env: env() });
    await cairn.waitForLine(isEvent("tool_call_update", (e) => e.name === "write_to_file" && e.status === "completed"));
    cairn.child.kill("SIGKILL");
    await cairn.exited;

    const history = JSON.parse((await runCairn(["history", "--all", "--json"], { env: env() })).stdout) as Array<{ status: string }>;
    expect(history[0]!.status).toBe("interrupted");

    const resumed = await runCairn(["resume", taskId(), ...args], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "a.txt"), "utf8")).toBe("first");
    expect(readFileSync(path.join(fx.workspace.dir, "b.txt"), "utf8")).toBe("second");
    // The lost reply's finished call is reported, so the model does not redo it blindly.
    const afterCrash = JSON.stringify(fx.server.requests[1]!.body);
    expect(afterCrash).toContain("had already run");
    expect(afterCrash).toContain("was interrupted");
    expect(fx.server.requests).toHaveLength(3);
  });

  it("while waiting between turns (the reply and its results recorded): resume goes on from the next turn", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "a.txt", content: "A" }),
        { delayMs: 60_000 },
        call("attempt_completion", { result: "done" }),
      ],
    });
    const args = ["--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "edit"];
    const cairn = startCairn(["run", ...args, "--cwd", fx.workspace.dir, "--json", "write a"], { env: env() });
    await cairn.waitForLine(isEvent("turn_start", (e) => e.turn === 2));
    while (fx.server.requests.length < 2) await new Promise((r) => setTimeout(r, 20));
    cairn.child.kill("SIGKILL");
    await cairn.exited;

    const resumed = await runCairn(["resume", taskId(), ...args, "--json"], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    const body = JSON.stringify(fx.server.requests[2]!.body);
    expect(body).toContain("Created a.txt");
    expect(readFileSync(path.join(fx.workspace.dir, "a.txt"), "utf8")).toBe("A");
    expect(resumed.events.at(-1)).toMatchObject({ subtype: "success", num_turns: 1 });
  });

  it("mid-command, in a turn with several calls: finished calls keep their results, the rest are reported interrupted, leftovers are stopped", async () => {
    const marker = path.join(fx.workspace.dir, "late.txt");
    fx.server = await startScriptedModelServer({
      turns: [
        {
          content: [
            { type: "tool_use", name: "write_to_file", input: { path: "a.txt", content: "A" } },
            { type: "tool_use", name: "execute_command", input: { command: `echo started > started.txt; sleep 4; echo late > ${marker}`, requires_approval: false, timeout: 60 } },
            { type: "tool_use", name: "write_to_file", input: { path: "b.txt", content: "B" } },
          ],
        },
        call("write_to_file", { path: "b.txt", content: "B" }),
        call("attempt_completion", { result: "done" }),
      ],
    });
    // Without the sandbox, whose commands die with Cairn itself (sandbox.test.ts): here resume must find and stop them.
    const args = ["--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "edit,all-commands", "--sandbox", "off"];
    const cairn = startCairn(["run", ...args, "--cwd", fx.workspace.dir, "--json", "write a and b"], { env: env() });
    await cairn.waitForLine(isEvent("tool_call", (e) => e.name === "execute_command"));
    while (!existsSync(path.join(fx.workspace.dir, "started.txt"))) await new Promise((r) => setTimeout(r, 20));
    cairn.child.kill("SIGKILL");
    await cairn.exited;

    const resumed = await runCairn(["resume", taskId(), ...args], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/stopped 1 command still running from the interrupted run/);
    const told = JSON.stringify(fx.server.requests[1]!.body);
    expect(told).toContain("Created a.txt");
    expect(told.match(/Interrupted: the task was stopped/g)).toHaveLength(2);
    expect(readFileSync(path.join(fx.workspace.dir, "a.txt"), "utf8")).toBe("A");
    expect(readFileSync(path.join(fx.workspace.dir, "b.txt"), "utf8")).toBe("B");
    // The orphaned command was stopped: it never gets to write its last line.
    await new Promise((r) => setTimeout(r, 4_500));
    expect(existsSync(marker)).toBe(false);
  }, 30_000);

  it("commands do not see the agent's API keys", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("execute_command", { command: "env", requires_approval: false }), call("attempt_completion", { result: "ok" })],
    });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "safe-commands", "--json", "show env"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "sk-ant-SECRET-VALUE", CAIRN_HOME: fx.home.dir }),
    });
    expect(run.code, run.stderr).toBe(0);
    const told = JSON.stringify(fx.server.requests[1]!.body);
    expect(told).toContain("CAIRN_TASK_ID=");
    expect(told).not.toContain("sk-ant-SECRET-VALUE");
  });
});
