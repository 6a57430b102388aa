import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { conversationRouter } from "../support/conversation-router.js";

const fx = useE2eFixture();

/** The second machine: its own CAIRN_HOME, its own copy of the workspace, its own model server. */
let there: { home: ReturnType<typeof tempDir>; workspace: ReturnType<typeof tempDir>; server?: ScriptedModelServer } | undefined;
afterEach(async () => {
  await there?.server?.close();
  there?.home.cleanup();
  there?.workspace.cleanup();
  there = undefined;
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

// Fake credentials: the model key the first machine runs with, another key in a file the model reads,
// and a token whose shape nothing knows, only that a variable named like a secret holds it.
const envKey = "sk-ant-api03-ENVkeyENVkeyENVkeyENVkey0123456789";
const fileKey = "sk-ant-api03-FILEkeyFILEkeyFILEkey9876543210";
const deployToken = "acme-live-92f1c0ffee4b1d2e";
const secrets = [envKey, fileKey, deployToken];

const envHere = () => cleanEnv({ ANTHROPIC_API_KEY: envKey, ACME_DEPLOY_TOKEN: deployToken, CAIRN_HOME: fx.home.dir });
const envThere = () => cleanEnv({ ANTHROPIC_API_KEY: "sk-ant-api03-otherMACHINEkey000000000000", CAIRN_HOME: there!.home.dir });

/** Every file under `dir`, for a look at what a home holds. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile());
}

/** A task on the first machine: reads .env (the key goes into the conversation), writes app.txt, keeps a checklist, completes. */
async function runTaskHere(): Promise<string> {
  writeFileSync(path.join(fx.workspace.dir, ".env"), `ANTHROPIC_API_KEY=${fileKey}\nACME_DEPLOY_TOKEN=${deployToken}\n`);
  fx.server = await startScriptedModelServer({
    turns: [
      call("read_file", { path: ".env", task_progress: "- [ ] Read the settings\n- [ ] Write app.txt" }),
      call("write_to_file", { path: "app.txt", content: "configured\n", task_progress: "- [x] Read the settings\n- [ ] Write app.txt" }),
      call("attempt_completion", { result: `Wrote app.txt\nIt uses ${fileKey} and ${deployToken}.`, task_progress: "- [x] Read the settings\n- [x] Write app.txt" }),
    ],
  });
  const run = await runCairn(
    ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "edit", `Configure the app\nThe deploy token is ${deployToken}.`],
    { env: envHere() },
  );
  expect(run.code, run.stderr).toBe(0);
  const [id] = readdirSync(path.join(fx.home.dir, "tasks")).filter((n) => n !== "index.json");
  // The first machine's record holds the secrets: there is something to redact.
  expect(readFileSync(path.join(fx.home.dir, "tasks", id!, "conversation.jsonl"), "utf8")).toContain(fileKey);
  return id!;
}

/** cairn show, with the one line that names the machine's folder left out. */
const shown = (stdout: string) => stdout.replace(/^ {2}workspace .*$/m, "  workspace <folder>");

describe("cairn export and cairn import", () => {
  it("a task exported without its secrets is imported into another home and folder, shows the same and resumes with its conversation", async () => {
    const id = await runTaskHere();
    const file = path.join(fx.home.dir, "task.cairn-task.json");
    const exported = await runCairn(["export", id, "-o", file], { env: envHere() });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(new RegExp(`^Exported task ${id} to .*: 7 messages, \\d+ events; \\d+ secrets redacted \\(.*anthropic-key.*env:ACME_DEPLOY_TOKEN.*\\)\\.\\n$`));
    const text = readFileSync(file, "utf8");
    for (const secret of secrets) expect(text).not.toContain(secret);
    const document = JSON.parse(text) as { format: string; version: number; redactions: { count: number; kinds: Record<string, number> }; tasks: Array<{ metadata: Record<string, unknown> }> };
    expect(document).toMatchObject({ format: "cairn-task", version: 1 });
    expect(document.redactions.kinds["anthropic-key"]).toBeGreaterThanOrEqual(2);
    expect(document.redactions.kinds["env:ACME_DEPLOY_TOKEN"]).toBeGreaterThanOrEqual(2);
    expect(document.tasks[0]!.metadata).toMatchObject({ id, status: "completed", taskProgress: [{ text: "Read the settings", done: true }, { text: "Write app.txt", done: true }] });

    // The second machine: a copy of the workspace as the task left it, somewhere else.
    there = { home: tempDir("home-there"), workspace: tempDir("ws-there") };
    cpSync(fx.workspace.dir, there.workspace.dir, { recursive: true });
    const imported = await runCairn(["import", file, "--cwd", there.workspace.dir], { env: envThere() });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(new RegExp(`^Imported task ${id}: Configure the app\\n  works in ${there.workspace.dir}\\n  \\d+ secrets were redacted when it was exported: \\[REDACTED:<kind>\\] stands in their place\\n`));

    const showHere = await runCairn(["show", id], { env: envHere() });
    const showThere = await runCairn(["show", id], { env: envThere() });
    expect(showThere.code, showThere.stderr).toBe(0);
    expect(shown(showThere.stdout)).toBe(shown(showHere.stdout));
    expect(showThere.stdout).toContain(`workspace ${there.workspace.dir}`);
    const history = JSON.parse((await runCairn(["history", "--all", "--json"], { env: envThere() })).stdout) as Array<{ id: string; status: string }>;
    expect(history).toEqual([expect.objectContaining({ id, status: "completed" })]);

    there.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "more.txt", content: "more\n" }), call("attempt_completion", { result: "Added more.txt" })] });
    const resumed = await runCairn(["resume", id, "Add more.txt", "--auto-approve", "edit", "--base-url", there.server.url], { env: envThere() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(path.join(there.workspace.dir, "more.txt"), "utf8")).toBe("more\n");
    expect(readFileSync(path.join(fx.workspace.dir, "app.txt"), "utf8")).toBe("configured\n");
    // The first request on the second machine carries the whole conversation of the first, then the new message.
    const body = JSON.stringify(there.server.requests[0]!.body);
    for (const earlier of ["Configure the app", "[REDACTED:anthropic-key]", "[REDACTED:env:ACME_DEPLOY_TOKEN]", "write_to_file", "app.txt", "Add more.txt"]) expect(body).toContain(earlier);
    expect(body.indexOf("Configure the app")).toBeLessThan(body.indexOf("Add more.txt"));
    const record = await runCairn(["show", id, "--json"], { env: envThere() });
    expect(JSON.parse(record.stdout)).toMatchObject({ status: "completed", turns: 5, workspace: there.workspace.dir });

    // Nothing the second machine keeps holds a secret of the first.
    for (const stored of filesUnder(there.home.dir)) {
      const content = readFileSync(stored, "latin1");
      for (const secret of secrets) expect(content.includes(secret), `${stored} holds ${secret.slice(0, 12)}...`).toBe(false);
    }
  });

  it("a task's sub-agents go with it, without the secret they read, and their links follow the ids they get here", async () => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), `token ${deployToken}\n`);
    const router = conversationRouter({
      "PARENT-TASK": [call("use_subagents", { prompts: ["SUB-ONE: read notes.txt", "SUB-TWO: read notes.txt"] }), call("attempt_completion", { result: "done" })],
      "SUB-ONE": [call("read_file", { path: "notes.txt" }), call("attempt_completion", { result: "ONE-REPORT" })],
      "SUB-TWO": [call("attempt_completion", { result: "TWO-REPORT" })],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "PARENT-TASK: research"], { env: envHere() });
    expect(run.code, run.stderr).toBe(0);
    const parentId = run.events.find((e) => e.type === "system" && e.subtype === "init")!.session_id as string;
    const file = path.join(fx.home.dir, "family.json");
    const exported = await runCairn(["export", parentId, "-o", file], { env: envHere() });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(", 2 sub-agent tasks; ");
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(deployToken);
    expect(text).toContain("[REDACTED:env:ACME_DEPLOY_TOKEN]");

    // Into the home they came from: every id is taken, so all three change, and stay linked to each other.
    const imported = await runCairn(["import", file], { env: envHere() });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(new RegExp(`^Imported task (\\S+) \\(exported as ${parentId}, an id a task here has\\), with 2 sub-agent tasks: PARENT-TASK: research\\n`));
    const newParent = /^Imported task (\S+)/.exec(imported.stdout)![1]!;
    const record = JSON.parse((await runCairn(["show", newParent, "--json"], { env: envHere() })).stdout) as { children: Array<{ id: string; relation: string }> };
    expect(record.children).toHaveLength(2);
    const before = JSON.parse((await runCairn(["show", parentId, "--json"], { env: envHere() })).stdout) as { children: Array<{ id: string }> };
    for (const child of record.children) {
      expect(child.relation).toBe("subagent");
      expect(before.children.map((c) => c.id)).not.toContain(child.id);
      const sub = await runCairn(["show", child.id], { env: envHere() });
      expect(sub.code, sub.stderr).toBe(0);
      expect(sub.stdout).toContain(`sub-agent of ${newParent}`);
      expect(sub.stdout).toMatch(/SUB-(ONE|TWO)/);
    }
  });

  it("an id taken here gets a new one; a file cut short, from a newer Cairn or for a folder not here is refused in one line", async () => {
    const id = await runTaskHere();
    const file = path.join(fx.workspace.dir, "task.json");
    expect((await runCairn(["export", id, "-o", file], { env: envHere() })).code).toBe(0);

    // Into the home it came from: the id is taken.
    const again = await runCairn(["import", file], { env: envHere() });
    expect(again.code, again.stderr).toBe(0);
    const newId = /^Imported task (\S+) \(exported as (\S+), an id a task here has\)/.exec(again.stdout);
    expect(newId?.[2]).toBe(id);
    expect(newId?.[1]).not.toBe(id);
    expect((await runCairn(["show", newId![1]!], { env: envHere() })).stdout).toContain("Configure the app");

    const text = readFileSync(file, "utf8");
    const refused = async (name: string, content: string, extra: string[] = []) => {
      writeFileSync(path.join(fx.workspace.dir, name), content);
      const run = await runCairn(["import", path.join(fx.workspace.dir, name), ...extra], { env: envHere() });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
      return run.stderr;
    };
    expect(await refused("cut.json", text.slice(0, Math.floor(text.length * 0.6)))).toMatch(/^cairn: .*cut\.json is not a whole exported task \(cut short or damaged: .*\); export the task again\.\n$/);
    expect(await refused("newer.json", text.replace(/"version": 1,/, '"version": 2,'))).toMatch(/^cairn: .*newer\.json was written by a newer Cairn \(task format version 2; this Cairn reads version 1\): update Cairn to import it\.\n$/);
    expect(await refused("moved.json", text.replaceAll(JSON.stringify(fx.workspace.dir), JSON.stringify(path.join(fx.workspace.dir, "gone"))))).toMatch(
      /^cairn: The task in .*moved\.json worked in .*gone, which is not on this machine: import it with --cwd <folder> \(a copy of that workspace\)\.\n$/,
    );
    const missing = await runCairn(["import", path.join(fx.workspace.dir, "nope.json")], { env: envHere() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^cairn: Cannot read .*nope\.json \(ENOENT\); give the path of a file cairn export wrote\.\n$/);
    const unwritable = await runCairn(["export", id, "-o", path.join(fx.workspace.dir, "no-such-folder", "task.json")], { env: envHere() });
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(/^cairn: cannot write .*no-such-folder\/task\.json \(ENOENT\); give -o a file in a folder you can write to\.\n$/);
    // Nothing refused was stored: the two tasks, and no half-written folder.
    expect(readdirSync(path.join(fx.home.dir, "tasks")).sort()).toEqual([id, newId![1]!, "index.json"].sort());
  });
});
