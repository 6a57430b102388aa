import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import { createModel } from "../model/providers.js";
import { allTools } from "../tools/registry.js";
import { Task, type TaskOptions } from "./task.js";

/**
 * Every refusal a call can get reaches the model as one line and the person (every host, the
 * journal) as a denied tool_call_update carrying a decision: who refused and why. One row per
 * refusal class, through a real task and the scripted model server, with its control: the same
 * call runs when the setting allows it.
 */

let server: ScriptedModelServer | undefined;
let base: string;
let cwd: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-refusals-")));
  cwd = path.join(base, "ws");
  mkdirSync(cwd);
  writeFileSync(path.join(cwd, "a.txt"), "alpha\n");
  writeFileSync(path.join(cwd, "secret.txt"), "the key\n");
  writeFileSync(path.join(base, "outside.txt"), "outside\n");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(base, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
type Options = Omit<TaskOptions, "model" | "tools" | "workspace">;
type Ends = Array<Extract<AgentEvent, { type: "tool_call_update"; content: string }>>;

/** Runs the calls (then a completion) without a host that can approve; the ends of the calls, and what the model read after the last. */
async function run(calls: ScriptedTurn[], options: Options = {}): Promise<{ ends: Ends; told: string }> {
  server = await startScriptedModelServer({ turns: [...calls, call("attempt_completion", { result: "done" })] });
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }), retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    tools: { list: allTools },
    workspace: { cwd },
    ...options,
  });
  const ends: Ends = [];
  const events = task.run("go");
  for (let next = await events.next(); !next.done; next = await events.next()) {
    const e = next.value;
    if (e.type === "tool_call_update" && "content" in e && e.name !== "attempt_completion") ends.push(e);
  }
  return { ends, told: JSON.stringify(server.requests[calls.length]?.body.messages ?? "") };
}

const ignoreSecret = () => writeFileSync(path.join(cwd, ".cairnignore"), "secret.txt\n");
const yolo = { policy: { yolo: true } };
const rewrite = (to: Record<string, unknown>): Options => ({ ...yolo, hooks: { loop: { beforeTool: (c) => (c.name === "read_file" ? { input: { ...c.input, ...to } } : undefined) } } });
const denyRules = { policy: { yolo: true, commandPermissions: { allow: [], deny: ["rm *"], allowRedirects: false } } };

type Refusal = {
  name: string;
  setup?: () => void;
  calls: ScriptedTurn[];
  options: Options;
  decision: { by: string; reason: string | RegExp };
  /** What the model reads of it. */
  told: string;
  /** The same call let through: the setting that allows it, and what shows it ran. */
  control: { setup?: () => void; calls?: ScriptedTurn[]; options: Options; ran?: () => boolean };
};

const refusals: Refusal[] = [
  {
    name: "mode gate: a write in PLAN mode, yolo even",
    calls: [call("write_to_file", { path: "w.txt", content: "w" })],
    options: { policy: { mode: "plan", yolo: true } },
    decision: { by: "policy", reason: "write_to_file is not available in PLAN mode" },
    told: "write_to_file is not available in PLAN mode. Use the tools this mode offers.",
    control: { options: { policy: { mode: "act", yolo: true } }, ran: () => existsSync(path.join(cwd, "w.txt")) },
  },
  {
    name: "narration: act_mode_respond twice in a row",
    calls: [call("act_mode_respond", { response: "starting" }), call("act_mode_respond", { response: "still starting" })],
    options: yolo,
    decision: { by: "policy", reason: "act_mode_respond twice in a row is narration, not work" },
    told: "act_mode_respond was refused: you used it in your previous call.",
    control: { calls: [call("act_mode_respond", { response: "starting" }), call("read_file", { path: "a.txt" }), call("act_mode_respond", { response: "read it" })], options: yolo },
  },
  {
    name: "ignored file: a read the ignore file blocks, yolo even",
    setup: ignoreSecret,
    calls: [call("read_file", { path: "secret.txt" })],
    options: yolo,
    decision: { by: "policy", reason: "secret.txt is blocked by .cairnignore; the person has put it out of reach" },
    told: "secret.txt is blocked by .cairnignore; the person has put it out of reach. Do not try to access it another way; work without it.",
    control: { setup: () => undefined, options: yolo },
  },
  {
    name: "ignored file: a hook rewrites a read into the ignored file",
    setup: ignoreSecret,
    calls: [call("read_file", { path: "a.txt" })],
    options: rewrite({ path: "secret.txt" }),
    decision: { by: "policy", reason: /^secret\.txt is blocked by \.cairnignore/ },
    told: "secret.txt is blocked by .cairnignore",
    control: { options: rewrite({ path: "a.txt" }) },
  },
  {
    name: "ignored file: the model's own read of it, rewritten by a hook to another file",
    setup: ignoreSecret,
    calls: [call("read_file", { path: "secret.txt" })],
    options: rewrite({ path: "a.txt" }),
    decision: { by: "policy", reason: /^secret\.txt is blocked by \.cairnignore/ },
    told: "secret.txt is blocked by .cairnignore",
    control: { setup: () => writeFileSync(path.join(cwd, ".cairnignore"), "other.txt\n"), options: rewrite({ path: "a.txt" }) },
  },
  {
    name: "hook deny: yolo does not lift it",
    calls: [call("write_to_file", { path: "w.txt", content: "w" })],
    options: { ...yolo, hooks: { loop: { beforeTool: () => ({ deny: "writes are frozen" }) } } },
    decision: { by: "hook", reason: "writes are frozen" },
    told: "Blocked by a hook: writes are frozen",
    control: { options: yolo, ran: () => existsSync(path.join(cwd, "w.txt")) },
  },
  {
    name: "command deny rule: yolo does not lift it",
    calls: [call("execute_command", { command: "rm -f a.txt", requires_approval: true })],
    options: denyRules,
    decision: { by: "policy", reason: /^"rm -f a\.txt" matches the deny rule "rm \*" of the command permissions\..* \(failing part: rm -f a\.txt\)$/ },
    told: "Command denied by the command rules: \\\"rm -f a.txt\\\" matches the deny rule",
    control: { options: { policy: { yolo: true, commandPermissions: { allow: [], deny: ["git push *"], allowRedirects: false } } }, ran: () => !existsSync(path.join(cwd, "a.txt")) },
  },
  {
    name: "protected file, nobody to ask: yolo does not approve it",
    calls: [call("write_to_file", { path: ".cairnignore", content: "" })],
    options: yolo,
    decision: { by: "policy", reason: /^\.cairnignore is a protected file \(.*\); only the person can approve changing it, and nobody can approve in this run$/ },
    told: "write_to_file was denied: .cairnignore is a protected file",
    control: { calls: [call("write_to_file", { path: "notes.txt", content: "" })], options: yolo, ran: () => existsSync(path.join(cwd, "notes.txt")) },
  },
  {
    name: "workspace boundary, nobody to ask: read does not cover a read outside",
    calls: [call("read_file", { path: "../outside.txt" })],
    options: { policy: { autoApprove: ["read"] } },
    decision: { by: "policy", reason: "needs approval (read-external) and nobody can approve it in this run" },
    told: "Not run: read_file needs approval (read-external) and nobody can approve it in this run",
    control: { options: { policy: { autoApprove: ["read-external"] } } },
  },
];

describe("executeCall: every refusal is a denied update with a decision, and one line to the model", () => {
  it.each(refusals)("$name", async (row) => {
    row.setup?.();
    const { ends, told } = await run(row.calls, row.options);
    const end = ends.at(-1)!;
    expect(end).toMatchObject({ status: "denied", is_error: true, decision: { approved: false, by: row.decision.by } });
    if (typeof row.decision.reason === "string") expect(end.decision!.reason).toBe(row.decision.reason);
    else expect(end.decision!.reason).toMatch(row.decision.reason);
    expect(end.decision!.reason).not.toContain("\n");
    expect(end.content).not.toContain("\n");
    expect(told).toContain(row.told);
    // Earlier calls of the row (the first act_mode_respond) ran.
    expect(ends.slice(0, -1).map((e) => e.status)).toEqual(ends.slice(0, -1).map(() => "completed"));
  });

  it.each(refusals)("control of $name", async (row) => {
    (row.control.setup ?? row.setup)?.();
    const { ends } = await run(row.control.calls ?? row.calls, row.control.options);
    expect(ends.map((e) => [e.name, e.status])).toEqual((row.control.calls ?? row.calls).map((c) => [(c.content![0] as { name: string }).name, "completed"]));
    if (row.control.ran) expect(row.control.ran()).toBe(true);
  });
});
