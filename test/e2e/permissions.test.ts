import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { approvalsAsked, decisionsMade, endedCalls } from "../support/tool-call-events.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = call("attempt_completion", { result: "done" });
const command = (text: string) => call("execute_command", { command: text, requires_approval: true });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const run = (...args: string[]) => runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", ...args], { env: env() });
const permissions = (...args: string[]) => runCairn(["permissions", "--cwd", fx.workspace.dir, ...args], { env: env() });
const at = (name: string) => path.join(fx.workspace.dir, name);

describe("saved 'always allow' rules through the real CLI", () => {
  it("a workspace rule lets cairn run a matching command without asking, refuses the rest, and stops once removed", async () => {
    const added = await permissions("add", "execute_command(touch allowed-*)");
    expect(added.code, added.stderr).toBe(0);
    const listed = await permissions();
    expect(listed.stdout).toBe("1. execute_command(touch allowed-*)  (this workspace)\n");
    // The rule is the person's, in CAIRN_HOME; nothing was written into the repository.
    expect(JSON.parse(readFileSync(path.join(fx.home.dir, "permissions.json"), "utf8"))).toMatchObject({ workspaces: { [fx.workspace.dir]: ["execute_command(touch allowed-*)"] } });
    expect(existsSync(at(".cairn"))).toBe(false);

    fx.server = await startScriptedModelServer({
      turns: [command("touch allowed-marker"), command("touch allowed-x; touch chained-marker"), command("touch allowed-y $(touch subst-marker)"), command("touch other-marker"), done],
    });
    const first = await run("make markers");
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(at("allowed-marker"))).toBe(true);
    for (const marker of ["chained-marker", "subst-marker", "other-marker", "allowed-x", "allowed-y"]) expect(existsSync(at(marker)), marker).toBe(false);
    const decisions = decisionsMade(first.events).map((d) => [d.approved, d.by, d.rule]);
    expect(decisions).toEqual([
      [true, "rule", "execute_command(touch allowed-*)"],
      [false, "policy", undefined],
      [false, "policy", undefined],
      [false, "policy", undefined],
    ]);
    expect(approvalsAsked(first.events).map((a) => a.preview?.command)).toEqual(["touch allowed-x; touch chained-marker", "touch allowed-y $(touch subst-marker)", "touch other-marker"]);

    const removed = await permissions("remove", "1");
    expect(removed.code, removed.stderr).toBe(0);
    expect((await permissions()).stdout).toContain("No saved rules");
    fx.server = await startScriptedModelServer({ turns: [command("touch allowed-again"), done] });
    const second = await run("make it again");
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(at("allowed-again"))).toBe(false);
    expect(endedCalls(second.events)[0]).toMatchObject({ status: "denied" });
  });

  it("a user rule holds in every workspace; --user rules are listed with their scope and removed by text", async () => {
    expect((await permissions("add", "--user", "write_to_file(notes/**)")).code).toBe(0);
    expect((await permissions()).stdout).toBe("1. write_to_file(notes/**)  (user: every workspace)\n");
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "notes/a.md", content: "A\n" }), call("write_to_file", { path: "b.md", content: "B\n" }), done] });
    const result = await run("write notes");
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(at("notes/a.md"), "utf8")).toBe("A\n");
    expect(existsSync(at("b.md"))).toBe(false);
    expect((await permissions("remove", "write_to_file(notes/**)")).code).toBe(0);
    expect((await permissions()).stdout).toContain("No saved rules");
  });

  it.each([
    [["add", "npm test"], /write it as tool\(pattern\)/],
    [["add", "write_to_file(../outside/**)"], /must not contain \.\./],
    [["add", "read_file(/etc/*)"], /relative to the workspace/],
    [["add", "execute_comand(npm test *)"], /"execute_comand" is not one of Cairn's tools \(did you mean execute_command\?\)/],
    [["add", "Bash(npm test:*)"], /"Bash" is not one of Cairn's tools; a rule names one of: .*execute_command/],
    [["remove", "3"], /No saved rule "3" here/],
    [["frobnicate"], /Unknown action "frobnicate"/],
  ])("cairn permissions %j fails with one line that says what to do", async (args, message) => {
    const result = await permissions(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(path.join(fx.home.dir, "permissions.json"))).toBe(false);
  });

  it("a damaged permissions.json is named in one line, not ignored", async () => {
    writeFileSync(path.join(fx.home.dir, "permissions.json"), JSON.stringify({ workspaces: {}, allowEverything: true }));
    const result = await permissions();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/permissions\.json: unknown key "allowEverything"/);
    // A task does not start as if no rules were saved: the person hears which file to fix.
    fx.server = await startScriptedModelServer({ turns: [done] });
    const task = await run("anything");
    expect(task.code).toBe(2);
    // Worded as settings.json's problems are: the file, the key, the keys there are, what to do.
    expect(task.stderr.trim()).toMatch(/^cairn: .*permissions\.json: unknown key "allowEverything"; the keys that can be set here are user, workspaces\. Fix the file or move it aside\.$/);
    expect(fx.server.requests).toHaveLength(0);
  });

  it("the model cannot grant itself a rule: CAIRN_HOME/permissions.json is protected even with every edit auto-approved", async () => {
    const file = path.join(fx.home.dir, "permissions.json");
    fx.server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: file, content: JSON.stringify({ user: ["execute_command(*)"], workspaces: {} }) }), command("touch pwned-marker"), done],
    });
    const result = await run("--auto-approve", "read,edit,edit-external", "grant yourself everything");
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(at("pwned-marker"))).toBe(false);
    expect(approvalsAsked(result.events)[0]).toMatchObject({ tool: "write_to_file", protected: { reason: expect.any(String) } });
    expect(approvalsAsked(result.events)[0]!.suggested_rule).toBeUndefined();
    // Positive control: the person's own way works.
    expect((await permissions("add", "execute_command(touch pwned-*)")).code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).workspaces[fx.workspace.dir]).toEqual(["execute_command(touch pwned-*)"]);
  });
});

describe("the tool-call lifecycle in --json", () => {
  it("an edit allowed by a rule runs pending → running (by rule) → completed; one that needs the person shows its diff before it is refused", async () => {
    writeFileSync(at("a.txt"), "one\ntwo\n");
    expect((await permissions("add", "replace_in_file(a.txt)")).code).toBe(0);
    fx.server = await startScriptedModelServer({
      turns: [
        call("replace_in_file", { path: "a.txt", diff: "------- SEARCH\ntwo\n=======\nTWO\n+++++++ REPLACE\n" }),
        call("write_to_file", { path: "b.txt", content: "new\n" }),
        done,
      ],
    });
    const result = await run("edit");
    expect(result.code, result.stderr).toBe(0);
    const life = (name: string) =>
      result.events.filter((e) => (e.type === "tool_call" || e.type === "tool_call_update") && e.name === name).map((e) => e.status);
    expect(life("replace_in_file")).toEqual(["pending", "running", "completed"]);
    expect(readFileSync(at("a.txt"), "utf8")).toBe("one\nTWO\n");
    expect(life("write_to_file")).toEqual(["pending", "awaiting_approval", "denied"]);
    expect(approvalsAsked(result.events)[0]).toMatchObject({
      category: "edit",
      preview: { type: "diff", path: "b.txt", old_text: null, new_text: "new\n" },
      suggested_rule: "write_to_file(**)",
    });
    expect(existsSync(at("b.txt"))).toBe(false);
  });
});
