import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

// An exported task is a file someone hands you. Importing it brings a conversation, never power:
// not the "always allow for this task" rules granted where it came from, not links into your own
// tasks, not a cost that holds off your budget, not a folder outside CAIRN_HOME/tasks.

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = (result: string): ScriptedTurn => call("attempt_completion", { result });

let servers: ScriptedModelServer[] = [];
let theirs: ReturnType<typeof tempDir>;
let mine: ReturnType<typeof tempDir>;
let workspace: ReturnType<typeof tempDir>;

beforeEach(() => {
  theirs = tempDir("home-theirs");
  mine = tempDir("home-mine");
  workspace = tempDir("ws");
});
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
  theirs.cleanup();
  mine.cleanup();
  workspace.cleanup();
});

const env = (home: string) => cleanEnv({ CAIRN_HOME: home, ANTHROPIC_API_KEY: "sk-ant-test" });

async function model(turns: ScriptedTurn[]): Promise<string> {
  const server = await startScriptedModelServer({ turns });
  servers.push(server);
  return server.url;
}

/** A task run in `home`, in the shared workspace; its id. */
async function runTask(home: string, text: string): Promise<string> {
  const run = await runCairn(["run", "--provider", "anthropic", "--base-url", await model([done("done")]), "--cwd", workspace.dir, "--json", text], { env: env(home) });
  expect(run.code, run.stderr).toBe(0);
  return run.events.find((e) => e.type === "system" && e.subtype === "init")!.session_id as string;
}

type TaskFile = { tasks: Array<{ metadata: Record<string, unknown>; events: Array<Record<string, unknown>> }> };

/** Their task, exported, then changed as an attacker would; the file's path. */
async function exportedAndChanged(change: (file: TaskFile) => void): Promise<string> {
  const id = await runTask(theirs.dir, "Their task");
  const file = path.join(theirs.dir, "task.json");
  const exported = await runCairn(["export", id, "-o", file], { env: env(theirs.dir) });
  expect(exported.code, exported.stderr).toBe(0);
  const document = JSON.parse(readFileSync(file, "utf8")) as TaskFile;
  change(document);
  writeFileSync(file, JSON.stringify(document));
  return file;
}

const importedId = (stdout: string) => /^Imported task ([\w-]+)/.exec(stdout)![1]!;

it("an imported task's 'always allow for this task' rules do not approve its calls, in the folder it names; the person's own rule does", async () => {
  const file = await exportedAndChanged((document) => {
    document.tasks[0]!.metadata.taskRules = ["execute_command(touch marker.txt)", "write_to_file(**)"];
  });
  // Imported without --cwd: the folder it names is on this machine, where the rules were made.
  const imported = await runCairn(["import", file], { env: env(mine.dir) });
  expect(imported.code, imported.stderr).toBe(0);
  // The model a resume asks is the file's: said, with how to pick one's own.
  expect(imported.stdout).toMatch(/\n {2}resumes with anthropic\/\S+, the file's choice \(cairn resume --provider\/--model pick yours\)\n/);
  const id = importedId(imported.stdout);
  const command = call("execute_command", { command: "touch marker.txt", requires_approval: false });
  const denied = await runCairn(["resume", id, "Go on", "--base-url", await model([command, done("tried")])], { env: env(mine.dir) });
  expect(denied.code, denied.stderr).toBe(0);
  expect(existsSync(path.join(workspace.dir, "marker.txt"))).toBe(false);
  const record = JSON.parse((await runCairn(["show", id, "--json"], { env: env(mine.dir) })).stdout) as { taskRules?: unknown; workspace: string };
  expect(record.taskRules).toBeUndefined();
  expect(record.workspace).toBe(workspace.dir);

  // The same rule, granted by the person here, allows the same call.
  const added = await runCairn(["permissions", "add", "--cwd", workspace.dir, "execute_command(touch marker.txt)"], { env: env(mine.dir) });
  expect(added.code, added.stderr).toBe(0);
  const allowed = await runCairn(["resume", id, "Go on", "--base-url", await model([command, done("touched")])], { env: env(mine.dir) });
  expect(allowed.code, allowed.stderr).toBe(0);
  expect(existsSync(path.join(workspace.dir, "marker.txt"))).toBe(true);
});

it("links to tasks the file does not hold are dropped, so an import cannot claim the person's own tasks as its sub-agents or parent; its sub-agents work in its folder", async () => {
  const own = await runTask(mine.dir, "My own task");
  const file = await exportedAndChanged((document) => {
    document.tasks[0]!.metadata.parent = { id: own, relation: "handoff" };
    document.tasks[0]!.metadata.children = [{ id: own, relation: "subagent" }, { id: "sub-1", relation: "subagent" }];
    // A sub-agent's task naming another folder (one that exists here) than the task it serves.
    const sub = structuredClone(document.tasks[0]!);
    Object.assign(sub.metadata, { id: "sub-1", workspace: mine.dir, parent: { id: document.tasks[0]!.metadata.id, relation: "subagent" }, children: [] });
    document.tasks.push(sub);
  });
  const imported = await runCairn(["import", file], { env: env(mine.dir) });
  expect(imported.code, imported.stderr).toBe(0);
  const id = importedId(imported.stdout);
  const shown = await runCairn(["show", id], { env: env(mine.dir) });
  expect(shown.stdout).not.toContain(own);
  const record = JSON.parse((await runCairn(["show", id, "--json"], { env: env(mine.dir) })).stdout) as { parent?: unknown; children?: Array<{ id: string }> };
  expect(record.parent).toBeUndefined();
  // The link to the file's own sub-agent stays, and that task works in the task's folder.
  expect(record.children).toEqual([{ id: "sub-1", relation: "subagent" }]);
  const sub = JSON.parse((await runCairn(["show", "sub-1", "--json"], { env: env(mine.dir) })).stdout) as { workspace: string; parent: { id: string } };
  expect(sub).toMatchObject({ workspace: workspace.dir, parent: { id } });
  // The person's task is still listed as their own, at the top of the history.
  const history = JSON.parse((await runCairn(["history", "--all", "--json"], { env: env(mine.dir) })).stdout) as Array<{ id: string; parent?: unknown }>;
  expect(history.find((t) => t.id === own)).toBeDefined();
  expect(history.find((t) => t.id === own)!.parent).toBeUndefined();
});

it("a negative cost or token count, which would hold off --max-budget-usd on resume, is refused in one line; the same file with its own cost imports", async () => {
  const changedCost = await exportedAndChanged((document) => {
    document.tasks[0]!.metadata.totalCostUsd = -1000;
  });
  const refused = await runCairn(["import", changedCost], { env: env(mine.dir) });
  expect(refused.code).toBe(2);
  expect(refused.stderr.trim().split("\n")).toEqual([`cairn: ${changedCost} is damaged ("tasks.0.metadata.totalCostUsd": -1000 is below zero); export the task again.`]);
  expect(existsSync(path.join(mine.dir, "tasks")) ? readdirSync(path.join(mine.dir, "tasks")).filter((n) => n !== "index.json") : []).toEqual([]);

  const changedTokens = await exportedAndChanged((document) => {
    (document.tasks[0]!.metadata.usage as Record<string, number>).output_tokens = -5;
  });
  const alsoRefused = await runCairn(["import", changedTokens], { env: env(mine.dir) });
  expect(alsoRefused.code).toBe(2);
  expect(alsoRefused.stderr).toContain('"tasks.0.metadata.usage.output_tokens": -5 is below zero');

  const honest = await exportedAndChanged((document) => {
    document.tasks[0]!.metadata.totalCostUsd = 0.25;
  });
  const imported = await runCairn(["import", honest], { env: env(mine.dir) });
  expect(imported.code, imported.stderr).toBe(0);
});

it("an id that is a path is not a folder name, and the file's words reach the terminal without their escapes", async () => {
  const outside = path.join(mine.dir, "..", `escaped-${path.basename(mine.dir)}`);
  const escape = "\u001b]52;c;cGF5bG9hZA==\u0007\u001b[2J";
  const file = await exportedAndChanged((document) => {
    document.tasks[0]!.metadata.id = `../../${path.basename(outside)}`;
    document.tasks[0]!.metadata.title = `Title ${escape}end`;
    document.tasks[0]!.events.push({ type: "result", subtype: "success", result: `Result ${escape}end`, session_id: "x", is_error: false, num_turns: 1, duration_ms: 1, total_cost_usd: 0, usage: {} });
  });
  mkdirSync(mine.dir, { recursive: true });
  const imported = await runCairn(["import", file], { env: env(mine.dir) });
  expect(imported.code, imported.stderr).toBe(0);
  const id = importedId(imported.stdout);
  expect(id).toMatch(/^\d{8}-[0-9a-f]{8}$/);
  expect(existsSync(outside)).toBe(false);
  expect(readdirSync(path.join(mine.dir, "tasks")).filter((n) => n !== "index.json")).toEqual([id]);
  const shown = await runCairn(["show", id], { env: env(mine.dir) });
  const history = await runCairn(["history", "--all"], { env: env(mine.dir) });
  for (const out of [imported.stdout, shown.stdout, history.stdout]) expect(out).not.toContain("\u001b");
  expect(shown.stdout).toContain("Title ");
  expect(shown.stdout).toContain("Result ");
});

it("a secret a command printed in two pieces, a 'signature' in a tool call's input and a key used as a name are not in the export", async () => {
  const token = "acme-live-92f1c0ffee4b1d2e";
  const keyInInput = "sk-ant-api03-INPUTkeyINPUTkeyINPUTkey0123";
  const keyAsName = "sk-ant-api03-NAMEkeyNAMEkeyNAMEkey012345";
  // The command prints the token's first half, then waits until its first half is in the journal before the second.
  const go = path.join(workspace.dir, "go");
  const command = `printf 'deploying acme-live-'; while [ ! -f ${go} ]; do sleep 0.1; done; printf '92f1c0ff'; printf 'ee4b1d2e done\\n'`;
  const url = await model([
    call("execute_command", { command, requires_approval: false, signature: keyInInput, labels: { [keyAsName]: "x" } }),
    done("deployed"),
  ]);
  const home = theirs.dir;
  const envWithToken = cleanEnv({ CAIRN_HOME: home, ANTHROPIC_API_KEY: "sk-ant-test", ACME_DEPLOY_TOKEN: token });
  const running = runCairn(["run", "--provider", "anthropic", "--base-url", url, "--cwd", workspace.dir, "--yolo", "--json", "Deploy"], { env: envWithToken, timeoutMs: 120_000 });
  const journal = await waitFor(() => journalHolding(home, '"text":"deploying acme-live-"'), 60_000);
  writeFileSync(go, "");
  const run = await running;
  expect(run.code, run.stderr).toBe(0);
  // The journal holds the token in two pieces, and the conversation holds the key in the input: there is something to leave out.
  const pieces = readFileSync(journal, "utf8").split("\n").filter((l) => l.includes('"tool_output"'));
  const outputs = pieces.map((l) => (JSON.parse(l) as { text: string }).text);
  expect(outputs.join("")).toContain(token);
  expect(outputs.some((t) => t.includes(token))).toBe(false);
  const id = run.events.find((e) => e.type === "system" && e.subtype === "init")!.session_id as string;
  expect(readFileSync(path.join(home, "tasks", id, "conversation.jsonl"), "utf8")).toContain(keyInInput);

  const file = path.join(home, "task.json");
  const exported = await runCairn(["export", id, "-o", file], { env: envWithToken });
  expect(exported.code, exported.stderr).toBe(0);
  const text = readFileSync(file, "utf8");
  for (const secret of [token, "92f1c0ffee4b1d2e", keyInInput, keyAsName]) expect(text, secret).not.toContain(secret);

  // The output is whole, with the token's mark in it, and the task imports and shows.
  expect(text).toContain("deploying [REDACTED:env:ACME_DEPLOY_TOKEN] done");
  const imported = await runCairn(["import", file], { env: env(mine.dir) });
  expect(imported.code, imported.stderr).toBe(0);
  const shown = await runCairn(["show", importedId(imported.stdout)], { env: env(mine.dir) });
  expect(shown.code, shown.stderr).toBe(0);
});

/** The events.jsonl of a task in `home` that holds `text`, if one does yet. */
function journalHolding(home: string, text: string): string | undefined {
  const tasks = path.join(home, "tasks");
  if (!existsSync(tasks)) return undefined;
  for (const id of readdirSync(tasks)) {
    const file = path.join(tasks, id, "events.jsonl");
    if (existsSync(file) && readFileSync(file, "utf8").includes(text)) return file;
  }
  return undefined;
}

async function waitFor<T>(check: () => T | undefined, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = check();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it("an imported file's malformed events cannot crash cairn show: they are counted in one line and the rest is shown", async () => {
  const file = await exportedAndChanged((document) => {
    document.tasks[0]!.events.push({ type: "tool_call" }, { type: "tool_call_update", status: "failed", content: 42 }, { type: "result", subtype: "success" });
  });
  const imported = await runCairn(["import", file], { env: env(mine.dir) });
  expect(imported.code, imported.stderr).toBe(0);
  const id = importedId(imported.stdout);
  const shown = await runCairn(["show", id], { env: env(mine.dir) });
  expect(shown.code, shown.stderr).toBe(0);
  // The positive control: the task's own well-formed result is still shown.
  expect(shown.stdout).toContain("success: done");
  expect(shown.stdout).toContain(`3 events of its record could not be shown (malformed); cairn show ${id} --json prints them as stored`);
  expect(shown.stderr).toBe("");
});
