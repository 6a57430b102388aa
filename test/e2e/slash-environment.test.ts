import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const provider = () => ["--provider", "anthropic", "--base-url", fx.server.url];
const isSummary = (r: RecordedRequest) => JSON.stringify(r.body.system ?? "").includes("working memory of a coding agent");
const taskIds = () => readdirSync(path.join(fx.home.dir, "tasks")).filter((n) => n !== "index.json").sort();

describe("environment details", () => {
  it("the first message carries the workspace listing; the time, mode and context use come again only when they changed, and after a resume", async () => {
    mkdirSync(path.join(fx.workspace.dir, "src"));
    writeFileSync(path.join(fx.workspace.dir, "src", "main.ts"), "x\n");
    writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), "secret.txt\n");
    writeFileSync(path.join(fx.workspace.dir, "secret.txt"), "x\n");
    fx.server = await startScriptedModelServer({ turns: [call("read_file", { path: "src/main.ts" }), call("read_file", { path: "src/main.ts", start_line: 1 }), call("attempt_completion", { result: "ok" })] });
    const run = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "look around"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const first = JSON.stringify((fx.server.requests[0]!.body as { messages: unknown[] }).messages[0]);
    expect(first).toContain("look around");
    expect(first).toContain("<environment_details>");
    expect(first).toContain("src/main.ts");
    expect(first).toContain("🔒 secret.txt");
    expect(first).toMatch(/Time: \d{4}-\d\d-\d\d \d\d:\d\d UTC\\nMode: ACT/);
    const results = (n: number) => JSON.stringify((fx.server.requests[n]!.body as { messages: unknown[] }).messages.at(-1));
    const line = /\[Environment: \d{4}-\d\d-\d\d \d\d:\d\d UTC · ACT mode · context [\d,]+ \/ 200,000 tokens \(\d+%\)\]/;
    // Same mode, the window not a tenth fuller: nothing to tell again, unless the hour turned meanwhile.
    const startHour = /Time: (\d{4}-\d\d-\d\d \d\d):/.exec(first)![1]!;
    for (const n of [1, 2]) {
      const told = /\[Environment: (\d{4}-\d\d-\d\d \d\d):/.exec(results(n));
      if (told) expect(told[1]).not.toBe(startHour);
    }

    // A resumed task's first request tells them again, with its new message.
    fx.server.enqueue(call("attempt_completion", { result: "again" }));
    const resumed = await runCairn(["resume", taskIds()[0]!, ...provider(), "look again"], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(results(3)).toContain("look again");
    expect(results(3)).toMatch(line);
    expect(results(3)).not.toMatch(/context 0 \//);
  });
});

describe("slash commands", () => {
  it("/newrule asks the model to write a rule file, and the rule is loaded by the next task", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: ".cairnrules/testing.md", content: "# Testing\n- Always run npm test before finishing.\n" }),
        call("attempt_completion", { result: "Wrote .cairnrules/testing.md" }),
        call("attempt_completion", { result: "second task" }),
      ],
    });
    const first = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "--auto-approve", "edit", "/newrule always run the tests"], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.stringify(fx.server.requests[0]!.body)).toContain("Write a new rule file for this workspace in .cairnrules/");
    const second = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "anything"], { env: env() });
    expect(second.code).toBe(0);
    expect(JSON.stringify(fx.server.requests[2]!.body.system)).toContain("Always run npm test before finishing.");
    const rules = await runCairn(["rules", "--cwd", fx.workspace.dir], { env: env() });
    expect(rules.code).toBe(0);
    expect(rules.stdout).toContain(".cairnrules");
  });

  it("a workflow file runs as /name with its arguments", async () => {
    mkdirSync(path.join(fx.workspace.dir, ".cairnrules", "workflows"), { recursive: true });
    writeFileSync(path.join(fx.workspace.dir, ".cairnrules", "workflows", "release.md"), "Release steps: bump the version, update the changelog.\n");
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "released" })] });
    const run = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "/release 2.1.0"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.stringify(fx.server.requests[0]!.body);
    expect(body).toContain("Release steps: bump the version");
    expect(body).toContain("Arguments: 2.1.0");
  });

  it("a workflow's front matter stays out of the request; its steps go in", async () => {
    mkdirSync(path.join(fx.workspace.dir, ".cairnrules", "workflows"), { recursive: true });
    writeFileSync(path.join(fx.workspace.dir, ".cairnrules", "workflows", "ship.md"), "---\ndescription: FRONT-MATTER-DESCRIPTION\n---\nShip steps: tag and publish.\n");
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "shipped" })] });
    const run = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "/ship"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.stringify(fx.server.requests[0]!.body);
    expect(body).toContain("Ship steps: tag and publish.");
    expect(body).not.toContain("FRONT-MATTER-DESCRIPTION");
  });

  it("an unknown /command is refused in one line before any request, exit 2; a path at the start is a message", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "looked" })] });
    const unknown = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "/deplyo now"], { env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^cairn: no workflow or command named \/deplyo \(the commands are \/compact, .*\)\n$/);
    expect(fx.server.requests).toHaveLength(0);
    expect(existsSync(path.join(fx.home.dir, "tasks"))).toBe(false);
    const path_ = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "/usr/bin/env is missing here"], { env: env() });
    expect(path_.code, path_.stderr).toBe(0);
    expect(JSON.stringify(fx.server.requests[0]!.body)).toContain("/usr/bin/env is missing here");
    // Where a session is already open (a resume, the web page, an editor), the task refuses it itself.
    const resumed = await runCairn(["resume", taskIds()[0]!, "/deplyo", ...provider()], { env: env() });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain("no workflow or command named /deplyo");
    expect(fx.server.requests).toHaveLength(1);
  });

  it("/compact on resume summarises the conversation and the task goes on", async () => {
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "a\n");
    fx.server = await startScriptedModelServer({
      responder: (request) => {
        if (isSummary(request)) return { content: [{ type: "text", text: "SUMMARY: read a.txt twice." }] };
        const n = fx.server.requests.filter((r) => !isSummary(r)).length;
        if (n <= 2) return call("read_file", { path: "a.txt" });
        if (n === 3) return call("ask_followup_question", { question: "Go on?" });
        return call("attempt_completion", { result: "after compaction" });
      },
    });
    const first = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "read a"], { env: env() });
    expect(first.code).toBe(3);
    const resumed = await runCairn(["resume", taskIds()[0]!, "/compact", ...provider(), "--json"], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.events.find((e) => e.type === "system" && e.subtype === "compact_boundary")).toMatchObject({ compact_metadata: { trigger: "manual" } });
    const after = fx.server.requests.filter((r) => !isSummary(r)).at(-1)!;
    expect(JSON.stringify(after.body)).toContain("SUMMARY: read a.txt twice.");
  });

  it("/newtask hands the essentials to a fresh task, which runs", async () => {
    fx.server = await startScriptedModelServer({
      responder: (request) => {
        if (isSummary(request)) return { content: [{ type: "text", text: "HANDOFF: finish the parser; src/parser.ts is half done." }] };
        const n = fx.server.requests.filter((r) => !isSummary(r)).length;
        if (n === 1) return call("ask_followup_question", { question: "Which parser?" });
        return call("attempt_completion", { result: "fresh task done" });
      },
    });
    const first = await runCairn(["run", ...provider(), "--cwd", fx.workspace.dir, "build the parser"], { env: env() });
    expect(first.code).toBe(3);
    const resumed = await runCairn(["resume", taskIds()[0]!, "/newtask", ...provider()], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe("fresh task done\n");
    expect(taskIds()).toHaveLength(2);
    const fresh = fx.server.requests.filter((r) => !isSummary(r)).at(-1)!;
    const messages = (fresh.body as { messages: unknown[] }).messages;
    expect(messages).toHaveLength(1);
    expect(JSON.stringify(messages[0])).toContain("HANDOFF: finish the parser");
  });
});
