import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serverEntry } from "../../packages/core/src/mcp/test-servers.js";
import { cleanEnv } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { sleep, TuiTerminal } from "../support/tui-terminal.js";
import { useTuiFixture } from "../support/tui-fixture.js";

/**
 * /settings in the interactive `cairn`, in a real terminal (tmux, 100x40): what it changes is
 * saved in the person's settings.json and read by the next task. The model is the scripted server.
 */

const fx = useTuiFixture("settings-tui");

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const settingsFile = () => path.join(fx.home.dir, "settings.json");
const settings = () => JSON.parse(readFileSync(settingsFile(), "utf8")) as Record<string, unknown>;

async function open(turns: ScriptedTurn[]): Promise<TuiTerminal> {
  fx.server = await startScriptedModelServer({ turns });
  writeFileSync(settingsFile(), JSON.stringify({ checkpoints: false }));
  fx.terminal = new TuiTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" }), fx.home.dir, fx.workspace.dir);
  fx.terminal.launch(["--provider", "anthropic", "--base-url", fx.server.url]);
  return fx.terminal;
}

/** The visible window only (not the scrollback): what is on screen now. */
const window = (t: TuiTerminal) => t.tmux("capture-pane", "-p", "-t", "main");

async function closed(t: TuiTerminal): Promise<void> {
  const until = Date.now() + 20_000;
  while (window(t).includes("Space toggles")) {
    if (Date.now() > until) throw new Error(`The settings screen did not close:\n${window(t)}`);
    await sleep(100);
  }
}

describe("/settings in the terminal", () => {
  it("Auto-approve Edit switched on: the next task's edit runs without asking, the box is on when reopened, settings.json has it", { timeout: 90_000 }, async () => {
    writeFileSync(path.join(fx.workspace.dir, "greet.txt"), "hello\n");
    const t = await open([call("write_to_file", { path: "greet.txt", content: "hello, world\n" }), call("attempt_completion", { result: "Greeting updated" })]);
    await t.waitFor("describe a task, or /help");
    await t.type("/settings");
    await t.press("Enter");
    const screen = await t.waitFor("[ ] Edit");
    for (const group of ["Auto-approve", "Max requests per task: no limit", "Provider: anthropic", "API key: set (ANTHROPIC_API_KEY)", "Sandbox", "MCP servers", "Rules files"]) expect(screen).toContain(group);
    expect(screen).toContain("[x] Read");
    // Read is selected first; Edit is the next row.
    await t.press("Down", "Space");
    await t.waitFor("[x] Edit");
    await t.waitFor("Changes apply from the next task.");
    expect(settings()).toEqual({ checkpoints: false, autoApprove: ["read", "edit"] });
    await t.press("Escape");
    await closed(t);

    await t.type("Update the greeting");
    await t.press("Enter");
    const done = await t.waitFor("✓ Greeting updated");
    expect(done).not.toContain("Apply this edit?");
    expect(readFileSync(path.join(fx.workspace.dir, "greet.txt"), "utf8")).toBe("hello, world\n");

    await t.type("/settings");
    await t.press("Enter");
    await t.waitFor(/Settings[\s\S]*\[x\] Edit/);
    // A task is open now: the footer says how to start the next one.
    await t.press("Down", "Space");
    await t.waitFor("[ ] Edit");
    await t.waitFor("Changes apply from the next task (/clear starts one).");
    expect(settings().autoApprove).toEqual(["read"]);
    await t.press("Escape");
    await closed(t);
  });

  it("a value the settings refuse is one line and nothing is saved; a good one is saved", { timeout: 90_000 }, async () => {
    const t = await open([]);
    await t.waitFor("describe a task, or /help");
    await t.type("/settings");
    await t.press("Enter");
    await t.waitFor("Max requests per task: no limit");
    // Read, Edit, Safe commands, All commands, Browser, MCP, then the limit.
    await t.press("Down", "Down", "Down", "Down", "Down", "Down", "Enter");
    await t.waitFor("Enter saves");
    await t.type("lots");
    await t.press("Enter");
    const refused = await t.waitFor("Not saved:");
    const line = refused.split("\n").find((l) => l.includes("Not saved:"))!;
    expect(line).toMatch(/maxTurns/);
    expect(settings()).toEqual({ checkpoints: false });

    await t.press("Enter");
    await t.waitFor("Enter saves");
    await t.type("25");
    await t.press("Enter");
    await t.waitFor("Max requests per task: 25");
    expect(settings()).toEqual({ checkpoints: false, maxTurns: 25 });
    await t.press("Escape");
    await closed(t);
    await t.type("/settings");
    await t.press("Enter");
    await t.waitFor(/Settings[\s\S]*Max requests per task: 25/);
  });

  it("a model typed in /settings is the one the next task asks, and the status line shows it; the session's own flag is said to win", { timeout: 90_000 }, async () => {
    const t = await open([call("attempt_completion", { result: "Done with the other model" })]);
    await t.waitFor("describe a task, or /help");
    await t.type("/settings");
    await t.press("Enter");
    // Launched with --provider: that row says the flag wins for this session.
    await t.waitFor("Provider: anthropic  --provider wins in this session");
    // Read, Edit, Safe commands, All commands, Browser, MCP, the limit, Provider, then Model.
    for (let i = 0; i < 8; i++) await t.press("Down");
    await t.press("Enter");
    await t.waitFor("Enter saves");
    await t.press("C-u");
    await t.type("claude-haiku-4-5");
    await t.press("Enter");
    await t.waitFor("Model: claude-haiku-4-5");
    expect(settings()).toEqual({ checkpoints: false, provider: "anthropic", model: "claude-haiku-4-5" });
    await t.press("Escape");
    await closed(t);
    await t.type("Say hello");
    await t.press("Enter");
    await t.waitFor("✓ Done with the other model");
    expect(fx.server!.requests[0]!.body.model).toBe("claude-haiku-4-5");
    await t.waitFor(/ACT .*claude-haiku-4-5/);
  });

  it("an MCP server restarted from /settings lists its tools; switched off, the next task is not offered them", { timeout: 120_000 }, async () => {
    const t = await open([call("attempt_completion", { result: "Done without memory" })]);
    writeFileSync(path.join(fx.home.dir, "mcp_settings.json"), JSON.stringify({ mcpServers: { mem: { command: process.execPath, args: [serverEntry.memory()] } } }));
    await t.waitFor("describe a task, or /help");
    await t.type("/settings");
    await t.press("Enter");
    await t.waitFor("[x] mem");
    // Up from the first row wraps to the last one: the server (no rules files here).
    await t.press("Up");
    await t.waitFor("· r restarts it ·");
    await t.press("r");
    await t.waitFor(/\[x\] mem +connected · 9 tools: create_entities/, 60_000);
    await t.press("Space");
    await t.waitFor("[ ] mem");
    const entry = (JSON.parse(readFileSync(path.join(fx.home.dir, "mcp_settings.json"), "utf8")) as { mcpServers: Record<string, { disabled?: boolean }> }).mcpServers.mem;
    expect(entry?.disabled).toBe(true);
    await t.press("Escape");
    await closed(t);
    await t.type("Remember nothing");
    await t.press("Enter");
    await t.waitFor("✓ Done without memory");
    const tools = (fx.server!.requests[0]!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(tools).toContain("write_to_file");
    expect(tools.some((name) => name.includes("create_entities"))).toBe(false);
  });

  it("a rules file switched off in /settings stays out of the next task's prompt (/clear starts it)", { timeout: 90_000 }, async () => {
    writeFileSync(path.join(fx.workspace.dir, ".clinerules"), "Always end with PINEAPPLE-RULE.\n");
    const t = await open([call("attempt_completion", { result: "Done with the rule" }), call("attempt_completion", { result: "Done without the rule" })]);
    await t.waitFor("describe a task, or /help");
    await t.type("First thing");
    await t.press("Enter");
    await t.waitFor("✓ Done with the rule");
    expect(JSON.stringify(fx.server!.requests[0]!.body)).toContain("PINEAPPLE-RULE");
    await t.type("/settings");
    await t.press("Enter");
    await t.waitFor("[x] .clinerules");
    // Up from the first row wraps to the last one: the rules file.
    await t.press("Up", "Space");
    await t.waitFor("[ ] .clinerules");
    await t.waitFor("Changes apply from the next task (/clear starts one).");
    expect(settings().rulesOff).toEqual([path.join(fx.workspace.dir, ".clinerules")]);
    await t.press("Escape");
    await closed(t);
    await t.type("/clear");
    await t.press("Enter");
    await t.waitFor("Started over");
    await t.type("Do the thing");
    await t.press("Enter");
    await t.waitFor("✓ Done without the rule");
    expect(fx.server!.requests).toHaveLength(2);
    expect(JSON.stringify(fx.server!.requests[1]!.body)).not.toContain("PINEAPPLE-RULE");
  });

  it("waits for the turn to end: a running task's approvals are never hidden behind it", { timeout: 90_000 }, async () => {
    const t = await open([{ delayMs: 30_000 }]);
    await t.waitFor("describe a task, or /help");
    await t.type("Slow task");
    await t.press("Enter");
    await t.waitFor("esc to stop");
    await t.type("/settings");
    await t.press("Enter");
    await t.waitFor("/settings waits for the turn to end");
    expect(window(t)).not.toContain("Space toggles");
    await t.press("Escape");
    await t.waitFor("Stopped.");
  });
});
