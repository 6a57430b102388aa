import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import { cardOf, foldEvent, initialTranscript } from "../transcript/index.js";
import { createModel } from "../model/providers.js";
import type { ApprovalCategory } from "../policy/approval-category.js";
import type { ActiveRule } from "../policy/decide-call.js";
import { loadPermissionRules, permissionsFile } from "../storage/permission-store.js";
import { allTools } from "../tools/registry.js";
import type { ApprovalRequest, ApprovalResponse } from "./host.js";
import { Task } from "./task.js";

/**
 * One tool call's life through a real Task, a scripted model server and a host that answers like
 * a person: the approval carries its preview (computed once, in core), "always allow" becomes a
 * rule that answers later calls (and is recorded as such), saved rules apply in later tasks.
 */

let server: ScriptedModelServer | undefined;
let base: string;
let ws: string;
let home: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-lifecycle-")));
  ws = path.join(base, "ws");
  home = path.join(base, "home");
  mkdirSync(path.join(ws, "src"), { recursive: true });
  mkdirSync(home);
  writeFileSync(path.join(ws, "src", "a.txt"), "one\ntwo\nthree\n");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(base, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = call("attempt_completion", { result: "done" });
const diff = "------- SEARCH\ntwo\n=======\nTWO\n+++++++ REPLACE\n";

async function runTask(turns: ScriptedTurn[], answer: (request: ApprovalRequest) => ApprovalResponse, rules: ActiveRule[] = [], policy: { autoApprove?: ApprovalCategory[]; yolo?: boolean } = {}) {
  server = await startScriptedModelServer({ turns });
  const asked: ApprovalRequest[] = [];
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }) },
    tools: { list: allTools },
    workspace: { cwd: ws, home },
    policy: { autoApprove: ["read"], rules, ...policy },
    host: {
      approve: async (request) => {
        asked.push(request);
        return answer(request);
      },
    },
  });
  const events: AgentEvent[] = [];
  const run = task.run("go");
  for (;;) {
    const next = await run.next();
    if (next.done) break;
    events.push(next.value);
  }
  await server.close();
  server = undefined;
  return { events, asked };
}

const lifecycle = (events: AgentEvent[], id: string) =>
  events.flatMap((e) => ((e.type === "tool_call" || e.type === "tool_call_update") && e.tool_use_id === id ? [e.status] : []));

describe("the life of one tool call", () => {
  it("an approved replace_in_file goes pending → awaiting_approval (with its diff) → running → completed", async () => {
    const { events, asked } = await runTask([call("replace_in_file", { path: "src/a.txt", diff }), done], () => ({ approved: true }));
    const id = asked[0]!.tool_use_id;
    expect(lifecycle(events, id)).toEqual(["pending", "awaiting_approval", "running", "completed"]);
    const awaiting = events.find((e) => e.type === "tool_call_update" && e.status === "awaiting_approval");
    const preview = { type: "diff", path: "src/a.txt", old_text: "one\ntwo\nthree\n", new_text: "one\nTWO\nthree\n" };
    expect(awaiting).toMatchObject({ approval: { category: "edit", preview, suggested_rule: "replace_in_file(src/**)" } });
    // The host got the same preview, and the file was unchanged while the person looked at it.
    expect(asked[0]!.preview).toEqual(preview);
    expect(events.find((e) => e.type === "tool_call_update" && e.status === "running")).toMatchObject({ decision: { approved: true, by: "user" } });
    expect(readFileSync(path.join(ws, "src", "a.txt"), "utf8")).toBe("one\nTWO\nthree\n");
    const pending = events.find((e) => e.type === "tool_call");
    expect(pending).toMatchObject({ kind: "edit", status: "pending", locations: [path.join(ws, "src", "a.txt")] });
  });

  it("a new file's preview has no old text; an edit that will fail is asked about with why, and changes nothing", async () => {
    const { asked, events } = await runTask(
      [
        call("write_to_file", { path: "src/new.txt", content: "hello\n" }),
        call("replace_in_file", { path: "src/a.txt", diff: "------- SEARCH\nnot there\n=======\nx\n+++++++ REPLACE\n" }),
        call("replace_in_file", { path: "src/gone.txt", diff }),
        done,
      ],
      (request) => ({ approved: request.tool === "replace_in_file" }),
    );
    expect(asked[0]!.preview).toEqual({ type: "diff", path: "src/new.txt", old_text: null, new_text: "hello\n" });
    expect(asked[1]!.preview).toEqual({ type: "diff_unavailable", path: "src/a.txt", reason: "this edit will fail: SEARCH block 1 not found" });
    expect(asked[2]!.preview).toEqual({ type: "diff_unavailable", path: "src/gone.txt", reason: "this edit will fail: src/gone.txt does not exist" });
    // The event carries the same reason, and the edit, approved, failed as said.
    expect(events.find((e) => e.type === "tool_call_update" && e.status === "awaiting_approval" && e.tool_use_id === asked[1]!.tool_use_id)).toMatchObject({ approval: { preview: asked[1]!.preview } });
    expect(lifecycle(events, asked[1]!.tool_use_id)).toEqual(["pending", "awaiting_approval", "running", "failed"]);
    expect(readFileSync(path.join(ws, "src", "a.txt"), "utf8")).toBe("one\ntwo\nthree\n");
  });

  it("an edit run without asking (auto-approve) carries its diff on running, computed before the file changed; other calls carry none", async () => {
    writeFileSync(path.join(ws, "src", "old.txt"), "before\n");
    const { events, asked } = await runTask(
      [
        call("write_to_file", { path: "src/b.txt", content: "B\n" }),
        call("write_to_file", { path: "src/old.txt", content: "after\n" }),
        call("replace_in_file", { path: "src/a.txt", diff }),
        call("replace_in_file", { path: "src/a.txt", diff: "------- SEARCH\nnot there\n=======\nx\n+++++++ REPLACE\n" }),
        call("read_file", { path: "src/a.txt" }),
        done,
      ],
      () => ({ approved: false }),
      [],
      { autoApprove: ["read", "edit"] },
    );
    expect(asked).toEqual([]);
    const running = events.flatMap((e) => (e.type === "tool_call_update" && e.status === "running" ? [e] : []));
    expect(running.map((e) => e.preview)).toEqual([
      { type: "diff", path: "src/b.txt", old_text: null, new_text: "B\n" },
      { type: "diff", path: "src/old.txt", old_text: "before\n", new_text: "after\n" },
      { type: "diff", path: "src/a.txt", old_text: "one\ntwo\nthree\n", new_text: "one\nTWO\nthree\n" },
      { type: "diff_unavailable", path: "src/a.txt", reason: "this edit will fail: SEARCH block 1 not found" },
      undefined, // read_file
      undefined, // attempt_completion
    ]);
    expect(readFileSync(path.join(ws, "src", "old.txt"), "utf8")).toBe("after\n");
    // The transcript's card of the call holds it, so every host reads it from one place.
    expect(cardOf(events.reduce(foldEvent, initialTranscript()), running[1]!.tool_use_id)).toMatchObject({ status: "completed", preview: running[1]!.preview });
  });

  it("yolo edits carry their diff on running too", async () => {
    const { events } = await runTask([call("write_to_file", { path: "src/y.txt", content: "Y\n" }), done], () => ({ approved: false }), [], { yolo: true });
    expect(events.find((e) => e.type === "tool_call_update" && e.status === "running")).toMatchObject({ preview: { type: "diff", path: "src/y.txt", old_text: null, new_text: "Y\n" } });
  });

  it("a refused edit ends denied with the person's decision, and the file is untouched", async () => {
    const { events, asked } = await runTask([call("replace_in_file", { path: "src/a.txt", diff }), done], () => ({ approved: false, feedback: "not now" }));
    const id = asked[0]!.tool_use_id;
    expect(lifecycle(events, id)).toEqual(["pending", "awaiting_approval", "denied"]);
    expect(events.find((e) => e.type === "tool_call_update" && e.status === "denied")).toMatchObject({ decision: { approved: false, by: "user", feedback: "not now" } });
    expect(readFileSync(path.join(ws, "src", "a.txt"), "utf8")).toBe("one\ntwo\nthree\n");
  });

  it("a command's approval shows the command, its classifier verdict and the sandbox", async () => {
    const { asked } = await runTask([call("execute_command", { command: "rm -rf build", requires_approval: true }), done], () => ({ approved: false }));
    expect(asked[0]!.preview).toMatchObject({ type: "command", command: "rm -rf build", cwd: ws, risk: "needs_approval", sandbox: { mode: "off" } });
    expect(asked[0]!.suggested_rule).toBe("execute_command(rm *)");
    // The person reads why the classifier asks, worded as the decision's reason words it.
    const reasons = (asked[0]!.preview as { reasons: string[] }).reasons;
    expect(reasons.length).toBeGreaterThan(0);
    expect(asked[0]!.summary.endsWith(` (${reasons.join("; ")})`)).toBe(true);
  });
});

describe('"always allow"', () => {
  it('remember: "task" lets the rule answer later matching calls, recorded as by: "rule"; others still ask', async () => {
    const { events, asked } = await runTask(
      [
        call("write_to_file", { path: "src/b.txt", content: "B\n" }),
        call("write_to_file", { path: "src/c.txt", content: "C\n" }),
        call("write_to_file", { path: "top.txt", content: "T\n" }),
        done,
      ],
      (request) => (request.input.path === "src/b.txt" ? { approved: true, remember: "task" } : { approved: false }),
    );
    expect(asked.map((r) => r.input.path)).toEqual(["src/b.txt", "top.txt"]);
    expect(readFileSync(path.join(ws, "src", "c.txt"), "utf8")).toBe("C\n");
    expect(existsSync(path.join(ws, "top.txt"))).toBe(false);
    const decisions = events.flatMap((e) => (e.type === "tool_call_update" && e.status === "running" && e.decision ? [e.decision] : []));
    expect(decisions).toEqual([
      { approved: true, by: "user", reason: "approved by the user" },
      { approved: true, by: "rule", reason: "allowed by the task rule write_to_file(src/**)", rule: "write_to_file(src/**)" },
    ]);
    // The diff travels once: with the approval the person saw, or on running for the edit the rule let through.
    const running = events.flatMap((e) => (e.type === "tool_call_update" && e.status === "running" ? [e] : []));
    expect(running.map((e) => e.preview)).toEqual([undefined, { type: "diff", path: "src/c.txt", old_text: null, new_text: "C\n" }, undefined /* attempt_completion */]);
    // A task rule is not saved.
    expect(existsSync(permissionsFile(home))).toBe(false);
  });

  it('remember: "workspace" saves the rule in CAIRN_HOME, and a later task applies it without asking', async () => {
    await runTask([call("execute_command", { command: "echo one > one.txt", requires_approval: true }), done], () => ({ approved: true, remember: "workspace" }));
    // A compound command gets no suggested rule, so nothing was saved.
    expect(existsSync(permissionsFile(home))).toBe(false);
    await runTask([call("execute_command", { command: "mkdir -p two", requires_approval: true }), done], () => ({ approved: true, remember: "workspace" }));
    expect(JSON.parse(readFileSync(permissionsFile(home), "utf8"))).toEqual({ user: [], workspaces: { [ws]: ["execute_command(mkdir *)"] } });
    const rules = loadPermissionRules(home, ws);
    const later = await runTask([call("execute_command", { command: "mkdir three", requires_approval: true }), call("execute_command", { command: "mkdir a; touch four.txt", requires_approval: true }), done], () => ({ approved: false }), rules);
    expect(existsSync(path.join(ws, "three"))).toBe(true);
    expect(later.asked.map((r) => r.input.command)).toEqual(["mkdir a; touch four.txt"]);
    expect(existsSync(path.join(ws, "four.txt"))).toBe(false);
  });

  it('remember: "user" saves the rule for every workspace', async () => {
    await runTask([call("execute_command", { command: "mkdir -p made", requires_approval: true }), done], () => ({ approved: true, remember: "user" }));
    expect(JSON.parse(readFileSync(permissionsFile(home), "utf8"))).toEqual({ user: ["execute_command(mkdir *)"], workspaces: {} });
    expect(loadPermissionRules(home, base)).toEqual([{ text: "execute_command(mkdir *)", tool: "execute_command", pattern: "mkdir *", scope: "user" }]);
  });

  it("a protected file offers no rule, and remember is ignored for it", async () => {
    const { asked, events } = await runTask(
      [call("write_to_file", { path: ".cairnignore", content: "a\n" }), call("write_to_file", { path: ".cairnignore", content: "b\n" }), done],
      () => ({ approved: true, remember: "workspace" }),
    );
    expect(asked).toHaveLength(2);
    expect(asked[0]!.protected).toBeDefined();
    expect(asked[0]!.suggested_rule).toBeUndefined();
    expect(events.some((e) => e.type === "tool_call_update" && e.status === "running" && e.decision?.by === "rule")).toBe(false);
    expect(existsSync(permissionsFile(home))).toBe(false);
  });

  it("a path rule does not follow a link out of the workspace or ../ (the model's path is the attacker)", async () => {
    const outside = path.join(base, "outside");
    mkdirSync(outside);
    symlinkSync(outside, path.join(ws, "src", "link"));
    const rules = loadPermissionRulesFor(["write_to_file(**)"]);
    const { asked } = await runTask(
      [call("write_to_file", { path: "src/link/planted.txt", content: "x" }), call("write_to_file", { path: "src/../../outside/planted2.txt", content: "x" }), call("write_to_file", { path: "src/ok.txt", content: "ok" }), done],
      () => ({ approved: false }),
      rules,
    );
    expect(asked.map((r) => [r.input.path, r.category])).toEqual([["src/link/planted.txt", "edit-external"], ["src/../../outside/planted2.txt", "edit-external"]]);
    expect(existsSync(path.join(outside, "planted.txt"))).toBe(false);
    expect(existsSync(path.join(outside, "planted2.txt"))).toBe(false);
    // Positive control: the same rule writes inside the workspace without asking.
    expect(readFileSync(path.join(ws, "src", "ok.txt"), "utf8")).toBe("ok");
  });
});

function loadPermissionRulesFor(texts: string[]): ActiveRule[] {
  writeFileSync(permissionsFile(home), JSON.stringify({ workspaces: { [ws]: texts } }));
  return loadPermissionRules(home, ws);
}
