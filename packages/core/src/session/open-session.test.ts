import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import type { TaskResult } from "../runtime/task.js";
import { openSession, resumeSession } from "./open-session.js";
import { resumeMessage } from "./resumed-state.js";
import { SessionError } from "./session-error.js";

let root: string;
let home: string;
let cwd: string;
let server: ScriptedModelServer | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-session-")));
  home = path.join(root, "home");
  cwd = path.join(root, "ws");
  mkdirSync(home);
  mkdirSync(cwd);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => ({ PATH: process.env.PATH, HOME: root, ANTHROPIC_API_KEY: "k", CAIRN_PROVIDER: "anthropic", CAIRN_BASE_URL: server!.url });

async function drain(run: AsyncGenerator<AgentEvent, TaskResult>): Promise<{ events: AgentEvent[]; result: TaskResult }> {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

describe("openSession / resumeSession", () => {
  it("a task opened, run and closed is resumed with its conversation, totals and settings", async () => {
    server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "a.txt", content: "A\n" }), call("attempt_completion", { result: "Wrote a.txt" }), call("attempt_completion", { result: "Checked a.txt" })],
    });
    const first = await openSession({ cwd, home, env: env(), overrides: { autoApprove: ["read", "edit"], model: "claude-sonnet-4-5" }, title: "Write a.txt" });
    expect(first.settings.model.id).toBe("claude-sonnet-4-5");
    const ran = await drain(first.task.run("Write a.txt"));
    await first.close();
    expect(ran.result.subtype).toBe("success");
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("A\n");
    expect(first.checkpoints).toBeDefined();

    const second = await resumeSession({ id: first.id.slice(0, 8), home, env: env() });
    const resumed = second.resumed!;
    expect(second.id).toBe(first.id);
    expect(resumed.meta).toMatchObject({ status: "completed", turns: 2, workspace: cwd });
    expect(resumed.messages).toHaveLength(5); // the task, two replies and their results
    expect(second.settings.model.id).toBe("claude-sonnet-4-5"); // the stored task's model, not the provider's default
    expect(second.settings.autoApprove).toEqual(["read"]); // a session's overrides are its own
    second.store.claim();
    const carried = await drain(second.task.continue(resumeMessage(resumed, second.settings.mode, "Check a.txt")));
    await second.close();
    expect(carried.result.subtype).toBe("success");
    const sent = JSON.stringify(server.requests[2]!.body);
    expect(sent).toContain("Write a.txt");
    expect(sent).toContain("Wrote a.txt");
    expect(sent).toContain("Check a.txt");
    expect(second.store.metadata()).toMatchObject({ status: "completed", turns: 3 });
  });

  it("notices from opening reach the person and the event stream (after system/init)", async () => {
    server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "ok" })] });
    mkdirSync(path.join(cwd, ".cairn"));
    writeFileSync(path.join(cwd, ".cairn", "settings.json"), JSON.stringify({ maxTurns: 1 }));
    const session = await openSession({ cwd, home, env: env(), title: "t" });
    const notice = `ignoring settings in ${path.join(cwd, ".cairn", "settings.json")} (this workspace's config is not trusted; run \`cairn trust --cwd ${cwd}\` to review and use it)`;
    expect(session.notices).toContain(notice);
    const { events } = await drain(session.task.run("go"));
    await session.close();
    const init = events.findIndex((e) => e.type === "system" && e.subtype === "init");
    const shown = events.findIndex((e) => e.type === "system" && e.subtype === "notice" && e.message === notice);
    expect(init).toBeGreaterThanOrEqual(0);
    expect(shown).toBe(init + 1);
    // Stored too: the journal sees what every host sees.
    expect(session.store.loadEvents().some((e) => e.type === "system" && e.subtype === "notice" && e.message === notice)).toBe(true);
  });

  it("withModel carries the conversation on with another model and records it", async () => {
    server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "one" }), call("attempt_completion", { result: "two" })] });
    const session = await openSession({ cwd, home, env: env(), title: "t" });
    await drain(session.task.run("first"));
    const switched = session.withModel("claude-haiku-4-5");
    expect(switched.settings.model.id).toBe("claude-haiku-4-5");
    expect(switched.id).toBe(session.id);
    await drain(switched.task.continue("second"));
    await switched.close();
    expect(server.requests[1]!.body).toMatchObject({ model: "claude-haiku-4-5" });
    expect(JSON.stringify(server.requests[1]!.body)).toContain("first");
    expect(switched.store.metadata().model).toBe("claude-haiku-4-5");
  });

  it("an 'always allow for this task' answer holds after withModel: the same task under another model is not asked again", async () => {
    mkdirSync(path.join(cwd, "sub"));
    server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "sub/a.txt", content: "a\n" }),
        call("attempt_completion", { result: "one" }),
        call("write_to_file", { path: "sub/b.txt", content: "b\n" }),
        call("attempt_completion", { result: "two" }),
      ],
    });
    const asked: string[] = [];
    const host = { approve: async (request: { tool: string; suggested_rule?: string }) => (asked.push(request.tool), { approved: true, remember: "task" as const }) };
    const session = await openSession({ cwd, home, env: env(), title: "t", host });
    await drain(session.task.run("first"));
    const switched = session.withModel("claude-haiku-4-5");
    const { events } = await drain(switched.task.continue("second"));
    await switched.close();
    expect(readFileSync(path.join(cwd, "sub", "b.txt"), "utf8")).toBe("b\n");
    expect(asked).toEqual(["write_to_file"]);
    const decided = events.find((e) => e.type === "tool_call_update" && e.name === "write_to_file" && e.status === "running");
    expect(JSON.stringify(decided)).toContain("allowed by the task rule write_to_file(sub/**)");
  });

  it("a hand-off opened without a mode keeps its parent's: PLAN stays PLAN unless the host names another (the person switched)", async () => {
    server = await startScriptedModelServer({ turns: [] });
    const parent = await openSession({ cwd, home, env: env(), overrides: { mode: "plan" }, title: "plan it" });
    const handed = await openSession({ cwd, home, env: env(), title: "carry on", parent: { store: parent.store, relation: "handoff" } });
    expect(handed.settings.mode).toBe("plan");
    expect(handed.store.metadata().mode).toBe("plan");
    const switched = await openSession({ cwd, home, env: env(), overrides: { mode: "act" }, title: "carry on", parent: { store: parent.store, relation: "handoff" } });
    expect(switched.settings.mode).toBe("act");
    await Promise.all([parent.close(), handed.close(), switched.close()]);
  });

  it("resumed in another folder (an editor's cwd), the task moves there: settings, record and first message say so; its task rules stay behind", async () => {
    server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "first" }), call("attempt_completion", { result: "second" })] });
    const first = await openSession({ cwd, home, env: env(), title: "start" });
    await drain(first.task.run("start"));
    first.store.addTaskRule("write_to_file(src/**)");
    await first.close();
    const other = path.join(root, "other");
    mkdirSync(other);
    const moved = await resumeSession({ id: first.id, home, env: env(), cwd: other });
    expect(moved.settings.cwd).toBe(other);
    expect(moved.notices.join("\n")).toContain(`this task worked in ${cwd}; it now works in ${other}, without its "always allow for this task" rules`);
    expect(moved.store.metadata()).toMatchObject({ workspace: other, taskRules: [] });
    const message = resumeMessage(moved.resumed!, moved.settings.mode, "go on");
    expect(message).toContain(`[This task now works in ${other}; the conversation above was in ${cwd}.`);
    await moved.close();
    // Its own folder: nothing moves, nothing is said.
    const same = await resumeSession({ id: first.id, home, env: env(), cwd: other });
    expect(same.notices.join("\n")).not.toContain("now works in");
    expect(resumeMessage(same.resumed!, same.settings.mode, "go on")).not.toContain("now works in");
    await same.close();
  });

  it("what the person must fix is a SessionError of one line", async () => {
    server = await startScriptedModelServer({ turns: [] });
    await expect(resumeSession({ id: "nope", home, env: env() })).rejects.toThrow(SessionError);
    const session = await openSession({ cwd, home, env: env(), title: "t" });
    session.store.claim(); // this process runs it
    await expect(resumeSession({ id: session.id, home, env: env() })).rejects.toThrow(/^Task .* is in use by process \d+; wait for it to finish or stop it\. If no Cairn runs as process \d+ \(check with ps -p \d+\), delete .*writer\.lock and try again\.$/);
    await session.close();
    await expect(openSession({ cwd: path.join(root, "missing"), home, env: env(), title: "t" })).rejects.toThrow(/is not a directory: pass an existing folder with --cwd\.$/);
    expect(existsSync(path.join(home, "tasks"))).toBe(true);
  });
});
