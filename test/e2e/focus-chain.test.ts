import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
  writeFileSync(path.join(fx.workspace.dir, "a.txt"), "alpha\n");
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const provider = () => ["--provider", "anthropic", "--base-url", fx.server.url];
/** The last message of a request: the results (and notes) the model got for its previous reply. */
const lastMessage = (r: RecordedRequest) => JSON.stringify((r.body as { messages: unknown[] }).messages.at(-1));
const isSummary = (r: RecordedRequest) => JSON.stringify(r.body.system ?? "").includes("working memory of a coding agent");
const taskIds = () => readdirSync(path.join(fx.home.dir, "tasks")).filter((n) => n !== "index.json");

describe("focus chain (task_progress)", () => {
  it("keeps the model's checklist (not repeated back to it), emits it, and asks about open items at completion", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        call("read_file", { path: "a.txt", task_progress: "- [ ] Read a.txt\n- [ ] Write b.txt" }),
        call("write_to_file", { path: "b.txt", content: "beta\n", task_progress: "- [x] Read a.txt\n- [ ] Write b.txt" }),
        call("attempt_completion", { result: "early", task_progress: "- [x] Read a.txt\n- [ ] Write b.txt" }),
        call("attempt_completion", { result: "wrote b.txt", task_progress: "- [x] Read a.txt\n- [x] Write b.txt" }),
      ],
    });
    const run = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "--auto-approve", "read,edit", "--json", "copy a to b"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    // The tools ran with task_progress in their input: it did not break their validation.
    expect(readFileSync(path.join(fx.workspace.dir, "b.txt"), "utf8")).toBe("beta\n");
    expect(run.events.filter((e) => e.type === "tool_call_update" && e.is_error === true)).toEqual([]);
    expect(run.events.filter((e) => e.type === "task_progress")).toEqual([
      { type: "task_progress", items: [{ text: "Read a.txt", done: false }, { text: "Write b.txt", done: false }] },
      { type: "task_progress", items: [{ text: "Read a.txt", done: true }, { text: "Write b.txt", done: false }] },
      { type: "task_progress", items: [{ text: "Read a.txt", done: true }, { text: "Write b.txt", done: true }] },
    ]);
    // The first request offers the parameter on every tool and says what it is, once.
    const first = fx.server.requests[0]!.body as { system: unknown; tools: Array<{ name: string; input_schema: { properties: Record<string, unknown> } }> };
    for (const tool of first.tools) expect(tool.input_schema.properties, tool.name).toHaveProperty("task_progress");
    expect(JSON.stringify(first.system)).toContain("task_progress: a markdown checklist");
    // The model's own calls carry the list it sent: the results do not repeat it back (each reply would grow by the list).
    expect(lastMessage(fx.server.requests[1]!)).not.toContain("[Task progress");
    expect(lastMessage(fx.server.requests[2]!)).not.toContain("[Task progress");
    expect(JSON.stringify(fx.server.requests[2]!.body)).toContain("- [x] Read a.txt\\n- [ ] Write b.txt");
    // attempt_completion with an open item: asked once, then the task finishes.
    expect(lastMessage(fx.server.requests[3]!)).toContain("still has open items:\\n- [ ] Write b.txt");
    expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "wrote b.txt" });
    expect(fx.server.requests).toHaveLength(4);
    const meta = JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", taskIds()[0]!, "metadata.json"), "utf8")) as { taskProgress: unknown };
    expect(meta.taskProgress).toEqual([{ text: "Read a.txt", done: true }, { text: "Write b.txt", done: true }]);
  });

  it("works under the xml protocol: <task_progress> inside any tool block", async () => {
    const xml = (text: string): ScriptedTurn => ({ content: [{ type: "text", text }] });
    fx.server = await startScriptedModelServer({
      turns: [
        xml("<read_file>\n<path>a.txt</path>\n<task_progress>\n- [ ] Read a.txt\n- [ ] Report\n</task_progress>\n</read_file>"),
        xml("<attempt_completion>\n<result>a.txt says alpha</result>\n<task_progress>\n- [x] Read a.txt\n- [x] Report\n</task_progress>\n</attempt_completion>"),
      ],
    });
    const run = await runCairn(["run", ...provider(), "--protocol", "xml", "--cwd", fx.workspace.dir, "--json", "read a"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.find((e) => e.type === "tool_call_update" && e.name === "read_file" && e.status === "completed")).toMatchObject({ is_error: false });
    expect(lastMessage(fx.server.requests[1]!)).toContain("alpha");
    expect(lastMessage(fx.server.requests[1]!)).not.toContain("[Task progress");
    expect(run.events.filter((e) => e.type === "task_progress").at(-1)).toEqual({ type: "task_progress", items: [{ text: "Read a.txt", done: true }, { text: "Report", done: true }] });
    expect(JSON.stringify(fx.server.requests[0]!.body.system)).toContain("task_progress: a markdown checklist");
  });

  it("a compaction inside a running task: the next request shows the list and the environment again, in the last results", async () => {
    mkdirSync(path.join(fx.workspace.dir, "src"));
    const line = (i: number, n: number) => `export function handler${i}_${n}(request: Request): Response { return respond(request.id + ${n}, "value ${i}.${n}"); }`;
    for (let i = 0; i < 40; i++) writeFileSync(path.join(fx.workspace.dir, "src", `f${i}.ts`), `${Array.from({ length: 60 }, (_, n) => line(i, n)).join("\n")}\n`);
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false, models: { "small-model": { contextWindow: 32_000, maxOutputTokens: 4_000 } } }));
    let reads = 0;
    fx.server = await startScriptedModelServer({
      responder: (request) => {
        if (isSummary(request)) return { content: [{ type: "text", text: "SUMMARY: reading the files one by one." }] };
        if (fx.server.requests.some(isSummary)) return call("attempt_completion", { result: "done" });
        reads++;
        return call("read_file", { path: `src/f${reads}.ts`, ...(reads === 1 ? { task_progress: "- [x] Start\n- [ ] Read every file" } : {}) });
      },
    });
    const run = await runCairn(["run", ...provider(), "--model", "small-model", "--cwd", fx.workspace.dir, "--compaction", "auto", "--max-turns", "60", "--json", "Read the files in src one by one."], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.filter((e) => e.type === "system" && e.subtype === "compact_boundary")).toHaveLength(1);
    const summaryAt = fx.server.requests.findIndex(isSummary);
    const before = fx.server.requests.slice(2, summaryAt);
    expect(before.length).toBeGreaterThan(2);
    // Before it, no reply's results repeat the list or an unchanged environment.
    for (const request of before) expect(lastMessage(request)).not.toContain("[Task progress");
    const after = fx.server.requests[summaryAt + 1]!;
    expect(JSON.stringify(after.body)).toContain("SUMMARY: reading the files one by one.");
    expect(lastMessage(after)).toContain("[Task progress (1/2 done; update it through task_progress as steps finish):\\n- [x] Start\\n- [ ] Read every file");
    expect(lastMessage(after)).toMatch(/\[Environment: [^\]]* · ACT mode · context [\d,]+ \/ 32,000 tokens/);
  });

  it("survives compaction and resume: the list comes back without the model sending it again", async () => {
    fx.server = await startScriptedModelServer({
      responder: (request) => {
        if (isSummary(request)) return { content: [{ type: "text", text: "SUMMARY: read a.txt." }] };
        const n = fx.server.requests.filter((r) => !isSummary(r)).length;
        if (n === 1) return call("read_file", { path: "a.txt", task_progress: "- [x] Read a.txt\n- [ ] Ask the person" });
        if (n === 2) return call("ask_followup_question", { question: "Go on?" });
        if (n === 3) return call("read_file", { path: "a.txt" });
        return call("attempt_completion", { result: "done" });
      },
    });
    const first = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "read a"], { env: env() });
    expect(first.code, first.stderr).toBe(3);
    const resumed = await runCairn(["resume", taskIds()[0]!, "/compact", ...provider(), "--json"], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.events.find((e) => e.type === "system" && e.subtype === "compact_boundary")).toBeDefined();
    // The first request after the resume and the compaction shows the list (and the environment) again, once.
    const [afterCompaction, next] = fx.server.requests.filter((r) => !isSummary(r)).slice(2);
    expect(JSON.stringify(afterCompaction!.body)).toContain("SUMMARY: read a.txt.");
    expect(JSON.stringify(afterCompaction!.body)).toContain("[Task progress (1/2 done; update it through task_progress as steps finish):\\n- [x] Read a.txt\\n- [ ] Ask the person");
    expect(JSON.stringify(afterCompaction!.body)).toContain("[Environment: ");
    expect(lastMessage(next!)).not.toContain("[Task progress");
  });
});
