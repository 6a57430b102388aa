import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCairn, type CliRun } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn, type Wire } from "../support/scripted-model-server.js";

/**
 * A provider that numbers its tool calls per response sends `call_0` for every call, every turn (as
 * Fireworks, Azure OpenAI, OpenRouter routes and local servers do). Cairn names each call itself, so
 * in `cairn run --json`, after `cairn resume` and in the stored events every call keeps its own card:
 * its own id, name and content. The provider gets its own id back, and never one id twice a request.
 */

const fx = useE2eFixture();

type Event = Record<string, unknown> & { type: string };

/** A turn of native calls, each under the id `call_0`. */
const turn = (...calls: Array<[string, Record<string, unknown>]>): ScriptedTurn => ({ content: calls.map(([name, input]) => ({ type: "tool_use", id: "call_0", name, input })) });

const wires: Array<{ wire: Wire; flags: () => string[]; env: Record<string, string> }> = [
  { wire: "anthropic", flags: () => ["--provider", "anthropic", "--base-url", fx.server.url], env: { ANTHROPIC_API_KEY: "k" } },
  { wire: "openai", flags: () => ["--provider", "openai-compatible", "--model", "scripted-model", "--base-url", `${fx.server.url}/v1`], env: { CAIRN_API_KEY: "k" } },
];

const toolCalls = (events: readonly Event[]) => events.filter((e) => e.type === "tool_call");
const updatesOf = (events: readonly Event[], id: unknown) => events.filter((e) => e.type === "tool_call_update" && e.tool_use_id === id);
const endOf = (events: readonly Event[], id: unknown) => updatesOf(events, id).find((e) => "content" in e);

/** Every call's updates carry its own name, and it ends once. */
function eachCardKeepsItsCall(events: readonly Event[]): void {
  for (const call of toolCalls(events)) {
    const updates = updatesOf(events, call.tool_use_id);
    expect(updates.length, `${String(call.name)} ${String(call.tool_use_id)}`).toBeGreaterThan(0);
    expect(new Set(updates.map((u) => u.name))).toEqual(new Set([call.name]));
    expect(updates.filter((u) => "content" in u)).toHaveLength(1);
  }
}

/** The ids a request sends the provider: each call's and each result's, in order. */
function wireIds(request: RecordedRequest): { calls: string[]; results: string[] } {
  const messages: any[] = request.body.messages;
  if (request.wire === "anthropic") {
    const blocks = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    return { calls: blocks.filter((b: any) => b.type === "tool_use").map((b: any) => b.id), results: blocks.filter((b: any) => b.type === "tool_result").map((b: any) => b.tool_use_id) };
  }
  return { calls: messages.flatMap((m) => (m.tool_calls ?? []).map((t: any) => t.id)), results: messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id) };
}

describe.each(wires)("a provider that sends call_0 for every call, on the $wire wire", ({ wire, flags, env: keys }) => {
  it("cairn run --json and cairn resume: one card per call with its own name and content, also in events.jsonl; the provider gets its ids back, none twice", { timeout: 180_000 }, async () => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "alpha\nbeta\n");
    const outside = path.join(fx.home.dir, "outside.txt");
    fx.server = await startScriptedModelServer({
      turns: [
        turn(["replace_in_file", { path: "notes.txt", diff: "------- SEARCH\nbeta\n=======\nBETA-EDITED\n+++++++ REPLACE" }]),
        // Outside the workspace: asked about, and refused (nobody is there to approve it).
        turn(["write_to_file", { path: outside, content: "no\n" }]),
        turn(["execute_command", { command: "echo COUNTED-7f3", requires_approval: false }]),
        // Two calls of one reply under one id.
        turn(["read_file", { path: "notes.txt" }], ["list_files", { path: "." }]),
        turn(["attempt_completion", { result: "FIRST-DONE" }]),
        // cairn resume: two more calls.
        turn(["read_file", { path: "notes.txt" }]),
        turn(["attempt_completion", { result: "SECOND-DONE" }]),
      ],
    });
    const env = cleanEnv({ CAIRN_HOME: fx.home.dir, ...keys });
    const common = [...flags(), "--cwd", fx.workspace.dir, "--auto-approve", "read,edit,safe-commands", "--json"];

    const first: CliRun = await runCairn(["run", ...common, "Tidy the notes"], { env, timeoutMs: 90_000 });
    expect(first.code, first.stderr).toBe(0);
    const calls = toolCalls(first.events);
    expect(calls.map((c) => c.name)).toEqual(["replace_in_file", "write_to_file", "execute_command", "read_file", "list_files", "attempt_completion"]);
    const ids = calls.map((c) => String(c.tool_use_id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain("call_0");
    eachCardKeepsItsCall(first.events);
    const [edit, write, command, read, list, done] = ids;
    expect(endOf(first.events, edit)).toMatchObject({ name: "replace_in_file", status: "completed" });
    expect(readFileSync(path.join(fx.workspace.dir, "notes.txt"), "utf8")).toBe("alpha\nBETA-EDITED\n");
    expect(endOf(first.events, write)).toMatchObject({ name: "write_to_file", status: "denied" });
    expect(endOf(first.events, command)).toMatchObject({ name: "execute_command", status: "completed" });
    expect(String(endOf(first.events, command)!.content)).toContain("COUNTED-7f3");
    expect(String(endOf(first.events, read)!.content)).toContain("BETA-EDITED");
    expect(endOf(first.events, list)).toMatchObject({ name: "list_files", status: "completed" });
    expect(String(endOf(first.events, list)!.content)).toContain("notes.txt");
    expect(endOf(first.events, done)).toMatchObject({ name: "attempt_completion", status: "completed" });
    // The streamed pieces of each call are under its own id too.
    const deltas = first.events.filter((e) => e.type === "tool_call_delta");
    for (const delta of deltas) expect(calls.find((c) => c.tool_use_id === delta.id)?.name, JSON.stringify(delta)).toBe(delta.name);
    const taskId = String(first.events.find((e) => e.type === "result")!.session_id);

    const second = await runCairn(["resume", taskId, ...common, "more"], { env, timeoutMs: 90_000 });
    expect(second.code, second.stderr).toBe(0);
    const more = toolCalls(second.events);
    expect(more.map((c) => c.name)).toEqual(["read_file", "attempt_completion"]);
    const moreIds = more.map((c) => String(c.tool_use_id));
    expect(new Set([...ids, ...moreIds]).size).toBe(ids.length + moreIds.length);
    eachCardKeepsItsCall(second.events);
    expect(endOf(second.events, moreIds[1])).toMatchObject({ name: "attempt_completion", status: "completed" });

    // The stored record agrees: every call once, under the id the runs showed, each update under its own call.
    const stored = readFileSync(path.join(fx.home.dir, "tasks", taskId, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Event);
    expect(toolCalls(stored).map((c) => c.tool_use_id)).toEqual([...ids, ...moreIds]);
    eachCardKeepsItsCall(stored);
    for (const id of [...ids, ...moreIds]) expect(endOf(stored, id)).toEqual(endOf([...first.events, ...second.events], id));

    // The provider's side: every request carries each call once, the first under the provider's own id, each result under its call's.
    const requests = fx.server.requests;
    expect(requests.every((r) => r.wire === wire)).toBe(true);
    for (const request of requests) {
      const sent = wireIds(request);
      expect(new Set(sent.calls).size).toBe(sent.calls.length);
      expect(sent.results).toEqual(sent.calls);
    }
    // The AI SDK's OpenAI-compatible client names the second call of a reply itself when its id repeats the first's.
    const secondOfReply = wire === "anthropic" ? list : expect.not.stringMatching(/^(call_0|tool_.*)$/);
    expect(wireIds(requests.at(-1)!).calls).toEqual(["call_0", write, command, read, secondOfReply, done, moreIds[0]]);
  });

  it("a conversation restored to a checkpoint, or compacted, and continued: the calls it dropped keep their ids to themselves", { timeout: 180_000 }, async () => {
    const isSummary = (r: RecordedRequest) => JSON.stringify(r.body.system ?? r.body.messages[0]).includes("working memory of a coding agent");
    fx.server = await startScriptedModelServer({
      responder: (request) => {
        if (isSummary(request)) return { content: [{ type: "text", text: "SUMMARY: wrote a.txt, then read it." }] };
        const last = JSON.stringify(request.body.messages.at(-1));
        // Each run (the first, after the restore, after the compaction): a call, then the finish.
        return /tool_result|"role":"tool"/.test(last) ? turn(["attempt_completion", { result: "done" }]) : turn(["read_file", { path: "a.txt" }]);
      },
    });
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "A\n");
    const env = cleanEnv({ CAIRN_HOME: fx.home.dir, ...keys });
    const common = [...flags(), "--cwd", fx.workspace.dir, "--json"];
    const cli = (...args: string[]) => runCairn(args, { env, timeoutMs: 90_000 });

    const first = await cli("run", ...common, "Read a.txt");
    expect(first.code, first.stderr).toBe(0);
    const taskId = String(first.events.find((e) => e.type === "result")!.session_id);
    const restored = await cli("checkpoints", "restore", taskId, "1", "--task");
    expect(restored.code, restored.stderr).toBe(0);
    const again = await cli("resume", taskId, ...common, "Read it again");
    expect(again.code, again.stderr).toBe(0);
    const compacted = await cli("resume", taskId, ...common, "/compact");
    expect(compacted.code, compacted.stderr).toBe(0);
    expect(compacted.events.some((e) => e.type === "system" && e.subtype === "compact_boundary")).toBe(true);

    const runs = [first, again, compacted].map((run) => toolCalls(run.events));
    for (const calls of runs) expect(calls.map((c) => c.name)).toEqual(["read_file", "attempt_completion"]);
    const ids = runs.flat().map((c) => c.tool_use_id);
    expect(new Set(ids).size).toBe(6);
    const stored = readFileSync(path.join(fx.home.dir, "tasks", taskId, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Event);
    expect(toolCalls(stored).map((c) => c.tool_use_id)).toEqual(ids);
    eachCardKeepsItsCall(stored);
  });
});
