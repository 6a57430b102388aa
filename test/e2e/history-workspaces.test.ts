import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { conversationRouter } from "../support/conversation-router.js";

const fx = useE2eFixture((fx) => writeFileSync(`${fx.home.dir}/settings.json`, JSON.stringify({ checkpoints: false })));
let other: ReturnType<typeof tempDir> | undefined;
afterEach(() => {
  other?.cleanup();
  other = undefined;
});

const usage = { input_tokens: 1000, output_tokens: 100 };
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], usage });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const run = (cwd: string, ...args: string[]) => runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", cwd, "--json", ...args], { env: env() });
type Row = { id: string; title: string; status: string; workspace: string; depth: number; parent?: { id: string; relation: string }; totalCostUsd: number | null; tokens: number };

describe("cairn history: per workspace, children under their parent, cost", () => {
  it("lists this workspace's tasks by default and every workspace's with --all; sub-agents and hand-offs under the task they came from; what each finished task cost", async () => {
    other = tempDir("other-ws");
    const router = conversationRouter({
      "HANDING-OVER": [call("new_task", { context: "TAKEN-OVER: finish the job" })],
      "TAKEN-OVER": [call("attempt_completion", { result: "finished" })],
      "WITH-HELPERS": [call("use_subagents", { prompts: ["HELPER-ONE: look around", "HELPER-TWO: look again"] }), call("attempt_completion", { result: "helped" })],
      "HELPER-ONE": [call("attempt_completion", { result: "one" })],
      "HELPER-TWO": [call("attempt_completion", { result: "two" })],
      "ELSEWHERE": [call("attempt_completion", { result: "far away" })],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    for (const [cwd, args] of [
      [fx.workspace.dir, ["HANDING-OVER: start the job"]],
      [fx.workspace.dir, ["--auto-approve", "read", "WITH-HELPERS: research"]],
      // A model whose price is not known: its cost is its tokens.
      [other.dir, ["--model", "unpriced-model-x", "ELSEWHERE: a task in another folder"]],
    ] as const) {
      const done = await run(cwd, ...args);
      expect(done.code, done.stderr).toBe(0);
    }

    // Run in the workspace: its four tasks, none from the other folder; each child right after its parent, one level in.
    const here = await runCairn(["history"], { env: env(), cwd: fx.workspace.dir });
    expect(here.code, here.stderr).toBe(0);
    const lines = here.stdout.trimEnd().split("\n");
    expect(here.stdout).not.toContain("ELSEWHERE");
    expect(lines).toHaveLength(5);
    const at = (title: string) => lines.findIndex((l) => l.includes(title));
    expect(lines[at("WITH-HELPERS")]).toMatch(/^\S/);
    expect(lines[at("HANDING-OVER")]).toMatch(/^\S/);
    expect([at("HELPER-ONE"), at("HELPER-TWO")].sort()).toEqual([at("WITH-HELPERS") + 1, at("WITH-HELPERS") + 2]);
    for (const sub of ["HELPER-ONE", "HELPER-TWO"]) expect(lines[at(sub)]).toMatch(/^ {2}\S.* sub-agent · HELPER/);
    expect(lines[at("TAKEN-OVER")]).toMatch(/^ {2}\S.* handed over · TAKEN-OVER/);
    expect(at("TAKEN-OVER")).toBe(at("HANDING-OVER") + 1);
    // The one vocabulary, and the cost of each finished task (a known model's price: dollars).
    for (const line of lines) expect(line).toMatch(/ completed {2}.* turns? · \$\d+\.\d+ /);
    // No workspace line unless every workspace is listed.
    expect(here.stdout).not.toContain(fx.workspace.dir);

    // --cwd names the workspace from anywhere; --json gives each row's depth.
    const json = await runCairn(["history", "--json", "--cwd", other.dir], { env: env() });
    const elsewhere = JSON.parse(json.stdout) as Row[];
    expect(elsewhere).toHaveLength(1);
    expect(elsewhere[0]).toMatchObject({ title: "ELSEWHERE: a task in another folder", depth: 0, totalCostUsd: null, tokens: 1100, status: "completed" });
    const unpriced = await runCairn(["history", "--cwd", other.dir], { env: env() });
    expect(unpriced.stdout).toMatch(/ 1 turn · 1\.1k tokens {2}ELSEWHERE/);

    // --all: every workspace's, each top-level task naming its folder; children still under their parents.
    const all = await runCairn(["history", "--all"], { env: env(), cwd: other.dir });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain("ELSEWHERE");
    expect(all.stdout).toContain(`\n    ${fx.workspace.dir}\n`);
    expect(all.stdout).toContain(`\n    ${other.dir}\n`);
    const rows = JSON.parse((await runCairn(["history", "--all", "--json"], { env: env() })).stdout) as Row[];
    expect(rows).toHaveLength(6);
    const byTitle = (prefix: string) => rows.find((r) => r.title.startsWith(prefix))!;
    expect(rows.filter((r) => r.depth === 0).map((r) => r.title.split(":")[0]).sort()).toEqual(["ELSEWHERE", "HANDING-OVER", "WITH-HELPERS"]);
    for (const sub of ["HELPER-ONE", "HELPER-TWO"]) expect(byTitle(sub)).toMatchObject({ depth: 1, parent: { id: byTitle("WITH-HELPERS").id, relation: "subagent" } });
    expect(byTitle("TAKEN-OVER")).toMatchObject({ depth: 1, parent: { id: byTitle("HANDING-OVER").id, relation: "handoff" } });
    expect(rows.indexOf(byTitle("TAKEN-OVER"))).toBe(rows.indexOf(byTitle("HANDING-OVER")) + 1);

    // A folder with no tasks says so, and where the rest are.
    const empty = tempDir("empty-ws");
    try {
      const none = await runCairn(["history"], { env: env(), cwd: empty.dir });
      expect(none.stdout).toMatch(/^No tasks in .* yet \(cairn history --all lists every workspace's\)/);
    } finally {
      empty.cleanup();
    }
  });
});
