import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { decisionsMade } from "../support/tool-call-events.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const run = (...args: string[]) => runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", ...args], { env: env() });

/**
 * Writes an executable hook script and a settings.json that runs it for `event`. A project hook's
 * script ships with the workspace, as a repository's would: it runs in the sandbox, which hides CAIRN_HOME.
 */
function hook(event: string, matcher: string | undefined, script: string, where: "global" | "project" = "global"): string {
  const folder = where === "global" ? fx.home.dir : path.join(fx.workspace.dir, "hooks");
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${event}-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, `#!/bin/sh\n${script}\n`);
  chmodSync(file, 0o755);
  const settingsFile = where === "global" ? path.join(fx.home.dir, "settings.json") : path.join(fx.workspace.dir, ".cairn", "settings.json");
  mkdirSync(path.dirname(settingsFile), { recursive: true });
  const settings = existsSync(settingsFile) ? (JSON.parse(readFileSync(settingsFile, "utf8")) as { hooks?: Record<string, unknown[]> }) : {};
  settings.hooks ??= {};
  (settings.hooks[event] ??= []).push({ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: file, timeout: 10 }] });
  writeFileSync(settingsFile, JSON.stringify(settings));
  return file;
}

describe("hooks (Claude Code's contract) through cairn run", () => {
  it("a PreToolUse hook that exits 2 denies a tool even in yolo mode; stderr reaches the model; stdin carries the event", async () => {
    const stdinCopy = path.join(fx.home.dir, "stdin.json");
    hook("PreToolUse", "write_to_file|replace_in_file", `cat > ${stdinCopy}; echo "writes to generated files are forbidden" >&2; exit 2`);
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "gen.txt", content: "x" }), call("attempt_completion", { result: "ok" })] });
    const result = await run("--yolo", "write it");
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(fx.workspace.dir, "gen.txt"))).toBe(false);
    expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("writes to generated files are forbidden");
    expect(decisionsMade(result.events)[0]).toMatchObject({ approved: false, by: "hook" });
    const event = JSON.parse(readFileSync(stdinCopy, "utf8")) as Record<string, unknown>;
    expect(event).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "write_to_file", tool_input: { path: "gen.txt", content: "x" }, cwd: fx.workspace.dir, permission_mode: "yolo" });
    expect(typeof event.session_id).toBe("string");
    expect(String(event.transcript_path)).toMatch(/conversation\.jsonl$/);
  });

  it("a PreToolUse hook can allow a call that would otherwise be denied, and its matcher leaves other tools alone", async () => {
    hook("PreToolUse", "write_to_file", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"trusted path"}}'`);
    fx.server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "ok.txt", content: "x" }), call("execute_command", { command: "echo hi", requires_approval: false }), call("attempt_completion", { result: "ok" })],
    });
    const result = await run("go");
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(fx.workspace.dir, "ok.txt"))).toBe(true);
    const decisions = decisionsMade(result.events).map((e) => [e.tool, e.approved, e.by]);
    expect(decisions).toEqual([["write_to_file", true, "hook"], ["execute_command", false, "policy"]]);
  });

  it("PostToolUse and UserPromptSubmit hooks add context for the model (project and global hooks both run)", async () => {
    hook("UserPromptSubmit", undefined, `echo "Team convention: tabs, not spaces."`);
    hook("PostToolUse", "read_file", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"This file is generated; edit the template."}}'`, "project");
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "a\n");
    // Project hooks run once the person trusted them.
    expect((await runCairn(["trust", "--cwd", fx.workspace.dir], { env: env() })).code).toBe(0);
    fx.server = await startScriptedModelServer({ turns: [call("read_file", { path: "a.txt" }), call("attempt_completion", { result: "ok" })] });
    const result = await run("read a");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.stringify(fx.server.requests[0]!.body)).toContain("Team convention: tabs, not spaces.");
    expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("This file is generated; edit the template.");
  });

  it("a Stop hook makes the agent continue, and stops forcing after its cap", async () => {
    hook("Stop", undefined, `echo "run the tests first" >&2; exit 2`);
    fx.server = await startScriptedModelServer({ responder: () => call("attempt_completion", { result: "done" }) });
    const result = await run("finish");
    expect(result.code, result.stderr).toBe(0);
    expect(fx.server.requests).toHaveLength(4);
    expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("run the tests first");
  });

  it("a SessionEnd hook's message reaches --json and the task's journal, after the result, like every other event", async () => {
    const stdinCopy = path.join(fx.home.dir, "session-end.json");
    hook("SessionEnd", undefined, `cat > ${stdinCopy}; echo '{"systemMessage":"SESSION-END-NOTE: logs archived"}'`);
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "ok" })] });
    const result = await run("go");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(readFileSync(stdinCopy, "utf8"))).toMatchObject({ hook_event_name: "SessionEnd" });
    const types = result.events.map((e) => (e.type === "system" ? `system/${String(e.subtype)}` : e.type));
    const note = result.events.findIndex((e) => e.type === "system" && e.subtype === "notice" && String(e.message).includes("SESSION-END-NOTE: logs archived"));
    expect(note, types.join(" ")).toBeGreaterThan(types.indexOf("result"));
    const taskDir = path.join(fx.home.dir, "tasks", result.events.find((e) => e.type === "result")!.session_id as string);
    expect(readFileSync(path.join(taskDir, "events.jsonl"), "utf8")).toContain("SESSION-END-NOTE: logs archived");
  });

  it("a broken hook configuration is reported and does not stop the run", async () => {
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ hooks: { PreToolUse: "not a list" } }));
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "ok" })] });
    const result = await run("go");
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/settings\.json/);
  });
});
