import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const provider = () => ["--provider", "anthropic", "--base-url", fx.server.url];
const taskIds = () => readdirSync(path.join(fx.home.dir, "tasks")).filter((n) => n !== "index.json");

describe("stored tasks", () => {
  it("history and show count one turn as 1 turn", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "Nothing to do" })] });
    const run = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "Check"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/completed \(1 turn, /);
    const history = await runCairn(["history", "--all"], { env: env() });
    expect(history.stdout).toMatch(/ 1 turn .*Check/);
    const show = await runCairn(["show", taskIds()[0]!], { env: env() });
    expect(show.stdout).toContain("  1 turn · ");
    expect(`${history.stdout}${show.stdout}`).not.toContain("1 turns");
  });

  it("a run is stored as it goes: history lists it, show tells what happened, delete removes it", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "a.txt", content: "A" }), call("attempt_completion", { result: "Wrote a.txt" })] });
    const run = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "--auto-approve", "edit", "Write a.txt\nwith A in it"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const [id] = taskIds();
    expect(id).toBeDefined();

    const history = await runCairn(["history", "--all", "--json"], { env: env() });
    const entries = JSON.parse(history.stdout) as Array<Record<string, unknown>>;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id, title: "Write a.txt", status: "completed", workspace: fx.workspace.dir, turns: 2 });

    const show = await runCairn(["show", id!.slice(0, 12)], { env: env() });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("status completed");
    expect(show.stdout).toContain("→ write a.txt");
    expect(show.stdout).toContain("success: Wrote a.txt");

    const conversation = readFileSync(path.join(fx.home.dir, "tasks", id!, "conversation.jsonl"), "utf8").trim().split("\n");
    // Five messages (task, two replies, two result messages), and each result written as soon as its call finished.
    const kinds = conversation.map((l) => Object.keys(JSON.parse(l) as object)[0]);
    expect(kinds.filter((k) => k === "message")).toHaveLength(5);
    expect(kinds.filter((k) => k === "call_result")).toHaveLength(2);
    expect(kinds.at(-1)).toBe("message");

    const del = await runCairn(["delete", id!], { env: env() });
    expect(del.code).toBe(0);
    expect(existsSync(path.join(fx.home.dir, "tasks", id!))).toBe(false);
    expect(JSON.parse((await runCairn(["history", "--all", "--json"], { env: env() })).stdout)).toEqual([]);
  });

  it("a damaged index is rebuilt from the task folders; a damaged task is reported and the rest still load", async () => {
    fx.server = await startScriptedModelServer({ responder: () => call("attempt_completion", { result: "ok" }) });
    for (const name of ["first task", "second task"]) {
      expect((await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, name], { env: env() })).code).toBe(0);
    }
    writeFileSync(path.join(fx.home.dir, "tasks", "index.json"), "{ not json");
    const [damaged] = taskIds().sort();
    writeFileSync(path.join(fx.home.dir, "tasks", damaged!, "metadata.json"), '{"id": "trunc');
    const history = await runCairn(["history", "--all", "--json"], { env: env() });
    expect(history.code).toBe(0);
    const entries = JSON.parse(history.stdout) as Array<{ title: string }>;
    expect(entries).toHaveLength(1);
    expect(history.stderr).toContain(`Skipped task ${damaged}`);
    const show = await runCairn(["show", damaged!], { env: env() });
    expect(show.code).toBe(2);
    expect(show.stderr).toMatch(/is damaged.*other tasks are unaffected/);
  });

  it("resume answers a pending question and the task completes in the same conversation", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("ask_followup_question", { question: "Which name?", options: ["alpha", "beta"] }), call("write_to_file", { path: "name.txt", content: "beta" }), call("attempt_completion", { result: "done" })],
    });
    const first = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "--auto-approve", "edit", "name it"], { env: env() });
    expect(first.code).toBe(3);
    const [id] = taskIds();
    expect(first.stderr).toContain(`cairn resume ${id}`);
    const second = await runCairn(["resume", id!, "beta", "--auto-approve", "edit", "--base-url", fx.server.url], { env: env() });
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "name.txt"), "utf8")).toBe("beta");
    const body = JSON.stringify(fx.server.requests[1]!.body);
    expect(body).toContain("name it");
    expect(body).toContain("<answer>\\nbeta\\n</answer>");
    const meta = JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", id!, "metadata.json"), "utf8")) as { status: string; turns: number };
    expect(meta).toMatchObject({ status: "completed", turns: 3 });
  });

  it("a plan awaiting approval is resumed in Act mode with --mode act", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("plan_mode_respond", { response: "1. create plan.txt" }), call("write_to_file", { path: "plan.txt", content: "done" }), call("attempt_completion", { result: "ok" })],
    });
    expect((await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "--mode", "plan", "plan it"], { env: env() })).code).toBe(3);
    const [id] = taskIds();
    const resumed = await runCairn(["resume", id!, "--mode", "act", "--auto-approve", "edit", "--base-url", fx.server.url, "--json"], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.events[0]).toMatchObject({ subtype: "init", mode: "act" });
    expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("approved your plan");
    expect(readFileSync(path.join(fx.workspace.dir, "plan.txt"), "utf8")).toBe("done");
  });

  it("unknown ids and running tasks are clear usage errors", async () => {
    const run = await runCairn(["resume", "nope"], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/No task "nope"/);
  });
});
