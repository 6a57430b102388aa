import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compileMatcher, loadHookConfig } from "./config.js";
import { projectConfig, trustProjectConfig } from "../session/project-config.js";
import { loadHooks } from "./load-hooks.js";
import { hookSandbox, on, type HookSandbox } from "./test-support.js";

let box: HookSandbox;

beforeEach(async () => {
  box = await hookSandbox();
});

afterEach(async () => {
  await box.cleanup();
});

const globalFile = () => path.join(box.home, "settings.json");
const projectFile = () => path.join(box.cwd, ".cairn", "settings.json");

describe("loadHooks", () => {
  it("has no runner and no warnings without settings, or with settings that have no hooks", async () => {
    expect(loadHooks(box)).toEqual({ hooks: undefined, warnings: [], sources: [], untrusted: [] });
    await writeFile(globalFile(), JSON.stringify({ model: "claude-sonnet-4-5" }));
    await writeFile(projectFile(), "");
    expect(loadHooks(box)).toEqual({ hooks: undefined, warnings: [], sources: [], untrusted: [] });
  });

  it("runs both global and project hooks, global first", async () => {
    await box.settings("global", { UserPromptSubmit: on(await box.script("global.sh", "echo from global")) });
    await box.settings("project", { UserPromptSubmit: on(await box.script("project.sh", "echo from project")) });
    const { runner, sources } = box.load();
    expect(sources).toEqual([globalFile(), projectFile()]);
    const outcome = await runner.userPromptSubmit({ ...box.session, prompt: "hi" });
    expect(outcome.additionalContext).toBe("from global\n\nfrom project");
  });

  it("warns about a broken file by name, ignores its hooks, and keeps the other file's", async () => {
    await box.settings("global", { PreToolUse: on(await box.script("deny.sh", "echo global says no >&2; exit 2")) });
    await writeFile(projectFile(), '{"hooks": {"PreToolUse": [ {"matcher": "x", ');
    const { runner, warnings } = box.load({ allowWarnings: true });
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^${projectFile()}: is not valid JSON .*; its hooks are ignored until the file is fixed\\.$`))]);
    const outcome = await runner.preToolUse({ ...box.session, toolName: "write_to_file", toolInput: {}, toolUseId: "t" });
    expect(outcome.reason).toBe("global says no");
  });

  it.each([
    ["hooks is not an object", { hooks: ["./x.sh"] }, `"hooks" invalid input`],
    ["a group without hooks", { hooks: { Stop: [{ matcher: "" }] } }, `"hooks.Stop.0.hooks" invalid input`],
    ["a command hook without a command", { hooks: { Stop: [{ hooks: [{ type: "command", command: "  " }] }] } }, `"hooks.Stop.0.hooks.0.command" must be a command to run`],
    ["a timeout that is not positive", { hooks: { Stop: [{ hooks: [{ type: "command", command: "true", timeout: 0 }] }] } }, `"hooks.Stop.0.hooks.0.timeout" must be a number of seconds above 0`],
    ["an invalid regular expression", { hooks: { PreToolUse: [{ matcher: "(write", hooks: [{ type: "command", command: "true" }] }] } }, `hooks.PreToolUse[0].matcher "(write" is not a valid regular expression`],
  ])("ignores the whole file for %s", async (_name, settings, message) => {
    await writeFile(projectFile(), JSON.stringify(settings));
    const config = loadHookConfig(box);
    expect(config.hooks).toEqual([]);
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toContain(`${projectFile()}: `);
    expect(config.warnings[0]?.toLowerCase()).toContain(message.toLowerCase());
  });

  it("skips, with a warning, events Cairn does not have and hook types it does not run, keeping the rest", async () => {
    await writeFile(
      projectFile(),
      JSON.stringify({
        hooks: {
          SubagentStop: on("true"),
          Stop: [{ hooks: [{ type: "prompt", prompt: "Is the work done?" }, { type: "command", command: "./hooks/stop.sh", timeout: 5 }] }],
        },
      }),
    );
    trustProjectConfig(box.home, projectConfig(box));
    const config = loadHookConfig(box);
    expect(config.hooks.map((h) => [h.event, h.command, h.timeoutMs, h.source])).toEqual([["Stop", "./hooks/stop.sh", 5_000, projectFile()]]);
    expect(config.warnings).toEqual([
      expect.stringContaining("hooks.SubagentStop is not an event Cairn has"),
      expect.stringContaining(`hooks.Stop[0].hooks[0] has type "prompt"; Cairn runs only "command" hooks`),
    ]);
  });

  it("reads a file once when CAIRN_HOME is the workspace's .cairn folder", async () => {
    await box.settings("project", { Stop: on("true") });
    const config = loadHookConfig({ home: path.join(box.cwd, ".cairn"), cwd: box.cwd });
    expect(config.hooks).toHaveLength(1);
    expect(config.sources).toEqual([projectFile()]);
  });
});

describe("compileMatcher", () => {
  const matches = (matcher: string, target: string) => {
    const test = compileMatcher(matcher);
    if (test instanceof Error) throw test;
    return test(target);
  };

  it("matches everything when empty or *", () => {
    expect(matches("", "read_file")).toBe(true);
    expect(matches("*", "mcp__x__y")).toBe(true);
  });

  it("matches plain names and | lists exactly", () => {
    expect(matches("write_to_file|replace_in_file", "replace_in_file")).toBe(true);
    expect(matches("write_to_file|replace_in_file", "read_file")).toBe(false);
    expect(matches("read_file", "read_file_v2")).toBe(false);
  });

  it("treats anything else as a regular expression", () => {
    expect(matches("mcp__github__.*", "mcp__github__create_issue")).toBe(true);
    expect(matches("^(read|list)_", "list_files")).toBe(true);
    expect(matches("^(read|list)_", "write_to_file")).toBe(false);
    expect(compileMatcher("([")).toBeInstanceOf(Error);
  });
});
