import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, type CliRun } from "../support/cairn-cli.js";
import { approvalsAsked } from "../support/tool-call-events.js";

/**
 * An ignored file that was committed before it was ignored: the sandbox masks it in the working
 * tree, but git keeps copies in its object store. Git commands that print stored content must then
 * need the person, while ordinary git use stays unasked.
 */
const fx = useE2eFixture();
const SECRET = "DB_PASSWORD=hunter2-from-history";
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const command = (text: string): ScriptedTurn => call("execute_command", { command: text, requires_approval: false });
const git = (...args: string[]) => execFileSync("git", args, { cwd: fx.workspace.dir, stdio: "ignore" });

function everyFile(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? everyFile(file) : [file];
  });
}

async function runCommands(commands: string[], autoApprove: string): Promise<CliRun> {
  fx.server = await startScriptedModelServer({ turns: [...commands.map(command), call("attempt_completion", { result: "done" })] });
  return runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", autoApprove, "--json", "look at the history"], {
    env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    timeoutMs: 60_000,
  });
}

const statuses = (run: CliRun) => run.events.filter((e) => e.type === "tool_call_update" && "content" in e && e.name === "execute_command").map((e) => e.status);

describe("git history holding an ignored file", () => {
  it("git commands that print stored content need the person; ordinary git stays unasked", async () => {
    git("init", "-q");
    writeFileSync(path.join(fx.workspace.dir, ".env"), `${SECRET}\n`);
    writeFileSync(path.join(fx.workspace.dir, "README.md"), "readme\n");
    git("add", "-A");
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "first");
    writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), ".env\n");
    const attacks = ["git show HEAD:.env", "git log -p", "git cat-file -p HEAD:.env", "git grep DB_PASS HEAD", "git -C . diff HEAD~0 --cached -R", "git archive HEAD .env"];
    // A harmless command between attacks, or loop detection ends the run after five denials in a row.
    const run = await runCommands([...attacks.flatMap((a) => [a, "echo between"]), "git status", "git log --oneline"], "read,safe-commands");
    expect(run.code, run.stderr).toBe(0);
    expect(statuses(run)).toEqual([...attacks.flatMap(() => ["denied", "completed"]), "completed", "completed"]);
    const asked = approvalsAsked(run.events).map((e) => String(e.summary));
    expect(asked).toHaveLength(attacks.length);
    for (const summary of asked) expect(summary).toContain("stored copies of files the ignore rules block");
    expect(run.stdout).not.toContain("hunter2-from-history");
    for (const request of fx.server.requests) expect(JSON.stringify(request.body)).not.toContain("hunter2-from-history");
    for (const file of everyFile(fx.home.dir)) expect(readFileSync(file, "latin1"), file).not.toContain("hunter2-from-history");
  });

  it("the same git commands run unasked when the repository tracks nothing the rules block", async () => {
    git("init", "-q");
    writeFileSync(path.join(fx.workspace.dir, "README.md"), "readme HISTORY-VISIBLE\n");
    git("add", "-A");
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "first");
    writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), ".env\n");
    writeFileSync(path.join(fx.workspace.dir, ".env"), `${SECRET}\n`);
    const run = await runCommands(["git show HEAD:README.md", "git log -p"], "read,safe-commands");
    expect(run.code, run.stderr).toBe(0);
    expect(statuses(run)).toEqual(["completed", "completed"]);
    expect(JSON.stringify(fx.server.requests.at(-1)!.body)).toContain("HISTORY-VISIBLE");
  });
});
