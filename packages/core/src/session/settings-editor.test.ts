import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { globalConfigFile } from "../mcp/config.js";
import { serverEntry } from "../mcp/test-servers.js";
import { loadRules } from "../prompt/rules/load-rules.js";
import { loadSettings } from "../storage/settings.js";
import { applySettingsChange, readSettingsView, restartMcpServer } from "./settings-editor.js";

let home: string;
let ws: string;
const env = {};

beforeEach(() => {
  home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-settings-home-")));
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-settings-ws-")));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(ws, { recursive: true, force: true });
});

const file = () => path.join(home, "settings.json");
const onDisk = () => JSON.parse(readFileSync(file(), "utf8")) as Record<string, unknown>;

describe("the settings view", () => {
  it("shows the defaults with no file: Read approved, no request limit, anthropic without a key, workspace-write", () => {
    const view = readSettingsView({ home, env });
    expect(view.autoApprove.map((a) => [a.name, a.on])).toEqual([
      ["Read", true],
      ["Edit", false],
      ["Safe commands", false],
      ["All commands", false],
      ["Browser", false],
      ["MCP", false],
    ]);
    expect(view.maxRequests).toBeUndefined();
    expect(view.provider).toBe("anthropic");
    expect(view.keySet).toBe(false);
    expect(view.keyVariables).toContain("ANTHROPIC_API_KEY");
    expect(view.sandboxMode).toBe("workspace-write");
    expect(view.problem).toBeUndefined();
  });

  it("says a key is set and in which variable, never the key itself", () => {
    const view = readSettingsView({ home, env: { OPENAI_API_KEY: "sk-secret-value" } });
    expect(view.keySet).toBe(false);
    writeFileSync(file(), JSON.stringify({ provider: "openai" }));
    const openai = readSettingsView({ home, env: { OPENAI_API_KEY: "sk-secret-value" } });
    expect(openai.keySet).toBe(true);
    expect(openai.keyVariables).toEqual(["OPENAI_API_KEY"]);
    expect(JSON.stringify(openai)).not.toContain("sk-secret-value");
  });
});

describe("what wins over the file", () => {
  it("the host's flags, the environment and the workspace's trusted settings are named per key", () => {
    const view = readSettingsView({ home, env: { CAIRN_SANDBOX: "off" }, overrides: { autoApprove: ["read", "edit"] } });
    expect(view.overridden).toEqual([
      { key: "autoApprove", by: "this session's flags" },
      { key: "sandbox", by: "the environment" },
    ]);
    expect(readSettingsView({ home, env }).overridden).toEqual([]);
  });
});

describe("changes", () => {
  it("are written to settings.json, keeping every key the view does not show, and read back as settings", () => {
    writeFileSync(file(), JSON.stringify({ hooks: { Stop: [] }, models: { m: { images: true } }, sandbox: { mode: "read-only", network: "off" } }));
    expect(applySettingsChange({ home, env }, { kind: "autoApprove", name: "Edit", on: true }).ok).toBe(true);
    expect(applySettingsChange({ home, env }, { kind: "maxRequests", value: "25" }).ok).toBe(true);
    expect(applySettingsChange({ home, env }, { kind: "sandboxMode", value: "off" }).ok).toBe(true);
    const result = applySettingsChange({ home, env }, { kind: "model", provider: "openai", model: "gpt-4.1" });
    expect(result.ok && result.view.autoApprove.find((a) => a.name === "Edit")?.on).toBe(true);
    expect(onDisk()).toEqual({
      hooks: { Stop: [] },
      models: { m: { images: true } },
      sandbox: { mode: "off", network: "off" },
      autoApprove: ["read", "edit"],
      maxTurns: 25,
      provider: "openai",
      model: "gpt-4.1",
    });
    expect(loadSettings(home).maxTurns).toBe(25);
    applySettingsChange({ home, env }, { kind: "autoApprove", name: "Read", on: false });
    applySettingsChange({ home, env }, { kind: "maxRequests", value: "" });
    expect(onDisk().autoApprove).toEqual(["edit"]);
    expect(onDisk()).not.toHaveProperty("maxTurns");
  });

  it("another provider starts at its own default model rather than the last one's", () => {
    applySettingsChange({ home, env }, { kind: "model", provider: "openai", model: "gpt-4.1" });
    const result = applySettingsChange({ home, env }, { kind: "model", provider: "deepseek" });
    expect(onDisk()).toEqual({ provider: "deepseek" });
    expect(result.ok && result.view.model).toBe("deepseek-chat");
  });

  it("a bad value is refused in one line naming the key, and the file stays as it was", () => {
    writeFileSync(file(), '{"maxTurns": 5, "hooks": {}}');
    for (const change of [
      { kind: "maxRequests", value: "-3" },
      { kind: "maxRequests", value: "many" },
      { kind: "sandboxMode", value: "wide-open" },
      { kind: "model", provider: "nope" },
    ] as const) {
      const result = applySettingsChange({ home, env }, change);
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error).not.toContain("\n");
      expect(result.error).toMatch(/"(maxTurns|sandbox\.mode|provider)"/);
      expect(readFileSync(file(), "utf8")).toBe('{"maxTurns": 5, "hooks": {}}');
    }
  });

  it("a broken file is never overwritten: the view says what is wrong and saving is refused", () => {
    writeFileSync(file(), '{"maxTurns": 5,,}');
    const view = readSettingsView({ home, env });
    expect(view.problem).toMatch(/settings\.json is not valid JSON/);
    const result = applySettingsChange({ home, env }, { kind: "autoApprove", name: "Edit", on: true });
    expect(result).toMatchObject({ ok: false });
    expect(readFileSync(file(), "utf8")).toBe('{"maxTurns": 5,,}');
  });
});

describe("rules files", () => {
  it("are listed for the workspace, and one switched off stays out of the prompt", () => {
    writeFileSync(path.join(ws, "AGENTS.md"), "Use tabs.\n");
    mkdirSync(path.join(ws, ".clinerules"));
    writeFileSync(path.join(ws, ".clinerules", "style.md"), "Write haiku comments.\n");
    const view = readSettingsView({ home, env, cwd: ws });
    expect(view.rules.map((r) => [r.source, r.on])).toEqual([
      ["AGENTS.md", true],
      [".clinerules/style.md", true],
    ]);
    const style = view.rules[1]!.path;
    const result = applySettingsChange({ home, env, cwd: ws }, { kind: "rule", path: style, on: false });
    expect(result.ok && result.view.rules.map((r) => r.on)).toEqual([true, false]);
    const rulesOff = loadSettings(home).rulesOff;
    expect(rulesOff).toEqual([style]);
    const prompt = loadRules({ cwd: ws, home, off: rulesOff }).text;
    expect(prompt).toContain("Use tabs.");
    expect(prompt).not.toContain("haiku");
    applySettingsChange({ home, env, cwd: ws }, { kind: "rule", path: style, on: true });
    expect(onDisk()).not.toHaveProperty("rulesOff");
  });
});

describe("MCP servers", () => {
  it("are listed from mcp_settings.json, switched off and on there, keeping the entry; a restart lists the tools or says why it failed", async () => {
    writeFileSync(
      globalConfigFile(home),
      JSON.stringify({
        mcpServers: {
          memory: { command: process.execPath, args: [serverEntry.memory()], env: { MEMORY_FILE_PATH: path.join(ws, "memory.jsonl") } },
          broken: { command: path.join(ws, "no-such-server") },
        },
      }),
    );
    const options = { home, env: { PATH: process.env.PATH }, cwd: ws };
    expect(readSettingsView(options).mcpServers.map((s) => [s.name, s.enabled, s.status])).toEqual([
      ["memory", true, "not started"],
      ["broken", true, "not started"],
    ]);
    const off = applySettingsChange(options, { kind: "mcpServer", name: "memory", enabled: false });
    expect(off.ok && off.view.mcpServers.find((s) => s.name === "memory")).toMatchObject({ enabled: false, status: "disabled" });
    const entry = () => (JSON.parse(readFileSync(globalConfigFile(home), "utf8")) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers.memory!;
    expect(entry()).toMatchObject({ disabled: true, args: [serverEntry.memory()] });
    expect(await restartMcpServer(options, "memory")).toMatchObject({ ok: false, error: expect.stringContaining("switched off") });
    applySettingsChange(options, { kind: "mcpServer", name: "memory", enabled: true });
    expect(entry()).not.toHaveProperty("disabled");

    const restarted = await restartMcpServer(options, "memory");
    expect(restarted.ok && restarted.server.tools).toContain("read_graph");
    // The tools seen are remembered: the view shows them without starting the server again.
    expect(readSettingsView(options).mcpServers.find((s) => s.name === "memory")?.tools).toContain("read_graph");
    const failed = await restartMcpServer(options, "broken");
    expect(failed.ok && failed.server).toMatchObject({ status: "failed", error: expect.stringMatching(/\S/) });
    expect(applySettingsChange(options, { kind: "mcpServer", name: "ghost", enabled: false })).toMatchObject({ ok: false, error: expect.stringContaining("no MCP server named ghost") });
  }, 60_000);
});
