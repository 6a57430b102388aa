/**
 * `cairn run` and `cairn resume` are hosts of core's SessionRunner: --json carries the session's own
 * events (session_opened, the person's words as user_message, handoff) besides the run's, after
 * system/init as Claude Code's stream-json starts; the wording Cairn puts around a message for the
 * model (an answer to the task's question) is not the person's message.
 */
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const flags = () => ["--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json"];
const types = (events: Array<Record<string, unknown>>) => events.map((e) => (e.type === "system" ? `system/${String(e.subtype)}` : String(e.type)));

describe("headless sessions", () => {
  it("run --json: init first, then the session's opening and the person's words; resume: the answer as they wrote it", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("ask_followup_question", { question: "Which colour?", options: ["red", "blue"] }), call("attempt_completion", { result: "Blue it is" })],
    });
    const asked = await runCairn(["run", ...flags(), "Paint the fence"], { env: env() });
    expect(asked.code, asked.stderr).toBe(3);
    expect(types(asked.events).slice(0, 3)).toEqual(["system/init", "session_opened", "user_message"]);
    const id = String(asked.events[0]!.session_id);
    expect(asked.events[1]).toMatchObject({ type: "session_opened", task_id: id, title: "Paint the fence", cwd: fx.workspace.dir, mode: "act" });
    expect(asked.events[2]).toEqual({ type: "user_message", text: "Paint the fence" });
    expect(asked.events.at(-1)).toMatchObject({ type: "result", subtype: "needs_input" });

    const answered = await runCairn(["resume", ...flags(), id, "blue"], { env: env() });
    expect(answered.code, answered.stderr).toBe(0);
    expect(types(answered.events)[0]).toBe("system/init");
    expect(answered.events.filter((e) => e.type === "user_message")).toEqual([{ type: "user_message", text: "blue" }]);
    expect(answered.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Blue it is" });
    const sent = JSON.stringify(fx.server.requests.at(-1)!.body.messages);
    expect(sent).toContain("<answer>\\nblue\\n</answer>");
  });

  it("a hand-off is an event of its own between the old task's result and the new task's opening, and says so on stderr without --json", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("new_task", { context: "Write done.txt" }), call("write_to_file", { path: "done.txt", content: "done\n" }), call("attempt_completion", { result: "Wrote done.txt" })],
    });
    const run = await runCairn(["run", ...flags(), "--auto-approve", "read,edit", "Start"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const order = types(run.events).filter((t) => ["system/init", "session_opened", "result", "handoff"].includes(t));
    expect(order).toEqual(["system/init", "session_opened", "result", "handoff", "session_opened", "system/init", "result"]);
    const [first, second] = run.events.filter((e) => e.type === "session_opened").map((e) => e.task_id);
    expect(run.events.find((e) => e.type === "handoff")).toEqual({ type: "handoff", from_task_id: first, task_id: second, context: "Write done.txt" });

    fx.server.enqueue(call("new_task", { context: "Write again.txt" }), call("attempt_completion", { result: "Nothing more" }));
    const plain = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "Start over"], { env: env() });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain("Handing over to a fresh task with this context:\nWrite again.txt\n");
    expect(plain.stdout).toBe("Nothing more\n");
  });
});
