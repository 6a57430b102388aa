import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn, type CliRun } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { approvalsAsked, callIdOf, decisionsMade, endedCalls } from "../support/tool-call-events.js";

/**
 * Agent Skills through the real CLI and a scripted model: the first request carries a catalog
 * (name, description, SKILL.md path) and never a body; the model reads a listed skill's files with
 * read_file and is not asked about it, though one is in CAIRN_HOME; broken skills are one notice
 * each and the task goes on; a SKILL.md that is a link to a secret outside is skipped and the
 * secret reaches nothing; a skill's script is a command like any other, under the same approval
 * and the same sandbox; `cairn skills` shows what a task would see and why one was skipped.
 */

const SECRET = "SKILL-LINK-SECRET-61f3";

const fx = useE2eFixture((f) => {
  writeFileSync(path.join(f.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
});

/** Outside the workspace, CAIRN_HOME and /tmp (which the sandbox replaces with a private one). */
let outside: string;
beforeEach(() => {
  outside = mkdtempSync("/var/tmp/cairn-skills-outside-");
});
afterEach(() => rmSync(outside, { recursive: true, force: true }));

const call = (name: string, input: Record<string, unknown>, id?: string): ScriptedTurn => ({ content: [{ type: "tool_use", name, input, ...(id ? { id } : {}) }] });
const read = (p: string, id: string) => call("read_file", { path: p }, id);
const sh = (command: string, id?: string) => call("execute_command", { command, requires_approval: false }, id);
const done = call("attempt_completion", { result: "done" });

function put(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const skillMd = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\n---\n# ${name}\n\n${body}\n`;

/** A workspace skill with a reference and a script, a global one with a reference, a bad name, broken front matter, and a SKILL.md linked to a secret. */
function arrange(): { ws: string; global: string } {
  const ws = fx.workspace.dir;
  mkdirSync(path.join(ws, ".git"));
  const local = path.join(ws, ".agents", "skills", "release-notes");
  put(path.join(local, "SKILL.md"), skillMd("release-notes", "Writes release notes from the git log. WS-DESC-14a", "WS-BODY-7a1: read references/style.md, then run scripts/stamp.sh."));
  put(path.join(local, "references", "style.md"), "WS-REF-3c2\n");
  const global = path.join(fx.home.dir, "skills", "pdf-forms");
  put(path.join(global, "SKILL.md"), skillMd("pdf-forms", "Fills PDF forms. GLOBAL-DESC-88b", "GLOBAL-BODY-9d4: see references/forms.md."));
  put(path.join(global, "references", "forms.md"), "GLOBAL-REF-5e6\n");
  put(path.join(ws, ".claude", "skills", "Bad_Skill", "SKILL.md"), skillMd("Bad_Skill", "BAD-NAME-DESC", "never offered"));
  put(path.join(ws, ".cairn", "skills", "broken", "SKILL.md"), '---\nname: broken\ndescription: "BROKEN-DESC never closed\n---\nbody\n');
  put(path.join(outside, "secret.md"), skillMd("leak", `Leaks ${SECRET}`, `${SECRET} body`));
  mkdirSync(path.join(ws, ".agents", "skills", "leak"));
  symlinkSync(path.join(outside, "secret.md"), path.join(ws, ".agents", "skills", "leak", "SKILL.md"));
  return { ws, global };
}

async function cairn(turns: ScriptedTurn[], args: string[] = []): Promise<CliRun> {
  await fx.server?.close();
  fx.server = await startScriptedModelServer({ turns });
  return runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", ...args, "go"], {
    env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    timeoutMs: 90_000,
  });
}

const systemOf = (request: RecordedRequest): string => JSON.stringify(request.body.system);
const messagesOf = (request: RecordedRequest): string => JSON.stringify(request.body.messages);
const notices = (run: CliRun): string[] => run.events.filter((e) => e.type === "system" && e.subtype === "notice").map((e) => String(e.message));
const resultOf = (run: CliRun, id: string) => endedCalls(run.events).find((c) => c.tool_use_id === id);
/** The script's command call (its scripted id "script" is the provider's; Cairn names the call itself). */
const scriptResult = (run: CliRun) => resultOf(run, callIdOf(run.events, "execute_command"));

describe("Agent Skills", () => {
  it("the first request lists skills without their bodies; the model reads a workspace and a global skill's files unasked; broken and linked-out skills are one notice each", { timeout: 120_000 }, async () => {
    const { global } = arrange();
    const beside = put(path.join(fx.home.dir, "skills", "notes.txt"), "BESIDE-SKILLS-2d7\n");
    const reads = {
      "g-skill": path.join(global, "SKILL.md"),
      "g-ref": path.join(global, "references", "forms.md"),
      "w-skill": ".agents/skills/release-notes/SKILL.md",
      "w-ref": ".agents/skills/release-notes/references/style.md",
      // The allowance is the listed skill folders, not CAIRN_HOME/skills: a file beside them is asked about (and, headless, denied).
      beside,
    };
    const run = await cairn([...Object.entries(reads).map(([id, p]) => read(p, id)), done]);
    expect(run.code, run.stderr).toBe(0);
    const idOf = (tag: keyof typeof reads) => callIdOf(run.events, "read_file", { path: reads[tag] });

    const first = fx.server.requests[0]!;
    const system = systemOf(first);
    expect(system).toContain("# Skills");
    for (const text of ["release-notes", "WS-DESC-14a", ".agents/skills/release-notes/SKILL.md", "pdf-forms (global)", "GLOBAL-DESC-88b", path.join(global, "SKILL.md")]) expect(system).toContain(text);
    const everythingFirst = JSON.stringify(first.body);
    for (const body of ["WS-BODY-7a1", "GLOBAL-BODY-9d4", "WS-REF-3c2", "GLOBAL-REF-5e6", "BAD-NAME-DESC", "BROKEN-DESC"]) expect(everythingFirst).not.toContain(body);

    // Each body and reference reaches the model only after it read them, and nothing asked the person.
    expect(approvalsAsked(run.events).filter((a) => a.tool_use_id !== idOf("beside"))).toEqual([]);
    for (const [id, text] of [["g-skill", "GLOBAL-BODY-9d4"], ["g-ref", "GLOBAL-REF-5e6"], ["w-skill", "WS-BODY-7a1"], ["w-ref", "WS-REF-3c2"]] as const) {
      expect(resultOf(run, idOf(id)), id).toMatchObject({ status: "completed", is_error: false });
      expect(resultOf(run, idOf(id))!.content).toContain(text);
      expect(decisionsMade(run.events).find((d) => d.tool_use_id === idOf(id))).toMatchObject({ approved: true, by: "auto" });
    }
    expect(messagesOf(fx.server.requests[1]!)).toContain("GLOBAL-BODY-9d4");
    expect(messagesOf(fx.server.requests[1]!)).not.toContain("WS-BODY-7a1");
    expect(messagesOf(fx.server.requests[3]!)).toContain("WS-BODY-7a1");
    // The control: outside the listed folders the boundary holds as before.
    expect(approvalsAsked(run.events).map((a) => [a.tool_use_id, a.category])).toEqual([[idOf("beside"), "read-external"]]);
    expect(resultOf(run, idOf("beside"))!.status).toBe("denied");
    expect(JSON.stringify(fx.server.requests.map((r) => r.body))).not.toContain("BESIDE-SKILLS-2d7");

    // One notice per broken skill, each naming what to fix; the linked secret reached nothing.
    const told = notices(run).filter((n) => n.startsWith("The skill "));
    expect(told).toHaveLength(3);
    expect(told.find((n) => n.includes("Bad_Skill"))).toMatch(/"name" must be lowercase letters/);
    expect(told.find((n) => n.includes("broken"))).toMatch(/front matter "description": a quote that is never closed/);
    expect(told.find((n) => n.includes(".agents/skills/leak/SKILL.md"))).toMatch(/leads outside the workspace/);
    expect(run.stdout).not.toContain(SECRET);
    expect(run.stderr).not.toContain(SECRET);
    for (const [i, request] of fx.server.requests.entries()) expect(JSON.stringify(request.body).includes(SECRET), `secret in request ${i}`).toBe(false);
    for (const entry of readdirSync(fx.home.dir, { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) expect(readFileSync(path.join(entry.parentPath, entry.name), "latin1").includes(SECRET), `secret in ${entry.name}`).toBe(false);
    }
  });

  it("without skills the system prompt has no skills section", { timeout: 60_000 }, async () => {
    const run = await cairn([done]);
    expect(run.code, run.stderr).toBe(0);
    expect(systemOf(fx.server.requests[0]!)).not.toContain("# Skills");
  });

  it("a workspace skill's script is a command: asked about like any (headless: denied), and run in the sandbox once approved, where a write outside stays blocked", { timeout: 120_000 }, async () => {
    const { ws } = arrange();
    const outsideMarker = path.join(outside, "escaped.txt");
    const script = put(path.join(ws, ".agents", "skills", "release-notes", "scripts", "stamp.sh"), `#!/bin/sh\necho STAMPED > stamped.txt\necho escaped > ${outsideMarker} 2>/dev/null || echo OUTSIDE-BLOCKED\n`);
    chmodSync(script, 0o755);
    const command = "sh .agents/skills/release-notes/scripts/stamp.sh";

    const refused = await cairn([sh(command, "script"), done]);
    expect(refused.code, refused.stderr).toBe(0);
    expect(scriptResult(refused)!.status).toBe("denied");
    expect(existsSync(path.join(ws, "stamped.txt"))).toBe(false);

    const ran = await cairn([sh(command, "script"), done], ["--auto-approve", "read,all-commands"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.events.find((e) => e.type === "system" && e.subtype === "init")!.sandbox).toMatchObject({ engine: "bubblewrap" });
    expect(scriptResult(ran)).toMatchObject({ status: "completed" });
    expect(readFileSync(path.join(ws, "stamped.txt"), "utf8")).toBe("STAMPED\n");
    expect(scriptResult(ran)!.content).toContain("OUTSIDE-BLOCKED");
    expect(existsSync(outsideMarker)).toBe(false);
  });

  it("a global skill's script cannot run in the sandbox, which hides CAIRN_HOME; with the sandbox off it runs, approved like any command", { timeout: 120_000 }, async () => {
    const { ws, global } = arrange();
    put(path.join(global, "scripts", "fill.sh"), "#!/bin/sh\necho FILLED > filled.txt\n");
    const command = `sh ${path.join(global, "scripts", "fill.sh")}`;
    const sandboxed = await cairn([sh(command, "script"), done], ["--auto-approve", "read,all-commands"]);
    expect(sandboxed.code, sandboxed.stderr).toBe(0);
    expect(existsSync(path.join(ws, "filled.txt"))).toBe(false);
    // The model is told so, with a way that works.
    expect(systemOf(fx.server.requests[0]!)).toContain("Commands run in a sandbox that hides CAIRN_HOME: a global skill's scripts cannot run from its folder.");

    const off = await cairn([sh(command, "script"), done], ["--auto-approve", "read,all-commands", "--sandbox", "off"]);
    expect(off.code, off.stderr).toBe(0);
    expect(readFileSync(path.join(ws, "filled.txt"), "utf8")).toBe("FILLED\n");
    expect(systemOf(fx.server.requests[0]!)).not.toContain("hides CAIRN_HOME");
  });

  it("cairn skills lists the skills a task would see and each skipped one with why", { timeout: 60_000 }, async () => {
    const { ws, global } = arrange();
    const env = cleanEnv({ CAIRN_HOME: fx.home.dir });
    const table = await runCairn(["skills", "--cwd", ws], { env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/release-notes\s+project\s+yes\s+\.agents\/skills\/release-notes\/SKILL\.md/);
    expect(table.stdout).toMatch(new RegExp(`pdf-forms\\s+global\\s+yes\\s+${path.join(global, "SKILL.md").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`));
    expect(table.stdout).toMatch(/\.claude\/skills\/Bad_Skill\/SKILL\.md: "name" must be lowercase letters/);
    expect(table.stdout).toMatch(/\.cairn\/skills\/broken\/SKILL\.md: front matter "description": a quote that is never closed/);
    expect(table.stdout).toMatch(/\.agents\/skills\/leak\/SKILL\.md: it leads outside the workspace/);
    expect(table.stdout).not.toContain(SECRET);

    const json = await runCairn(["skills", "--cwd", ws, "--json"], { env });
    expect(json.code, json.stderr).toBe(0);
    const shown = JSON.parse(json.stdout) as { skills: Array<{ name: string; scope: string; listed: boolean; source: string }>; skipped: Array<{ source: string; reason: string }> };
    expect(shown.skills.map((s) => [s.name, s.scope, s.listed])).toEqual([
      ["release-notes", "project", true],
      ["pdf-forms", "global", true],
    ]);
    expect(shown.skipped.map((s) => s.source).sort()).toEqual([".agents/skills/leak/SKILL.md", ".cairn/skills/broken/SKILL.md", ".claude/skills/Bad_Skill/SKILL.md"]);
  });
});
