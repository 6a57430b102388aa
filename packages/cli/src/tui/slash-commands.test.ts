import { resolveSettings } from "@cairn/core";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createElement } from "react";
import { render } from "ink-testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { overridesOf, parseRunArgs, type RunArgs } from "@cairn/host/run-args";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import { App } from "./app.js";
import { SessionController } from "./session-controller.js";
import { SessionView } from "./session-view.js";
import { themeFor } from "./theme.js";

/** The in-session commands, typed into the real App over a real Task (checkpoints on: real git). */

let server: ScriptedModelServer;
let workspace: string;
let home: string;
let app: ReturnType<typeof render> | undefined;
let session: SessionController | undefined;

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-slash-ws-")));
  home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-slash-home-")));
});
afterEach(async () => {
  await session?.exit();
  app?.unmount();
  app = undefined;
  session = undefined;
  await server?.close();
  rmSync(workspace, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const strip = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ""); // eslint-disable-line no-control-regex

async function open(turns: ScriptedTurn[], settings: Record<string, unknown> = { checkpoints: false }) {
  writeFileSync(path.join(home, "settings.json"), JSON.stringify(settings));
  server = await startScriptedModelServer({ turns });
  const args = parseRunArgs(["--provider", "anthropic", "--base-url", server.url, "--cwd", workspace, "--auto-approve", "edit"], workspace) as RunArgs;
  const env = { ANTHROPIC_API_KEY: "k", CAIRN_HOME: home };
  const view = new SessionView({ frameMs: 0, columns: 100, rows: 40 });
  session = new SessionController(args, { stdout: () => {}, stderr: () => {}, env }, view, resolveSettings({ cwd: args.cwd, env, overrides: overridesOf(args) }));
  app = render(createElement(App, { session, theme: themeFor({}) }));
  const frame = () => strip(app!.lastFrame() ?? "");
  const send = async (text: string) => {
    app!.stdin.write(text);
    await new Promise((resolve) => setTimeout(resolve, 20));
    app!.stdin.write("\r");
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const saw = async (text: string, timeoutMs = 10_000) => {
    const until = Date.now() + timeoutMs;
    while (!frame().includes(text)) {
      if (Date.now() > until) throw new Error(`Timed out waiting for ${JSON.stringify(text)}. Screen:\n${frame()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { frame, send, saw, key: (k: string) => app!.stdin.write(k) };
}

describe("slash commands", () => {
  it("/help lists the keys and every command; an unknown command says what to type", async () => {
    const ui = await open([]);
    await ui.send("/help");
    await ui.saw("Commands");
    for (const name of ["/mode", "/model", "/checkpoints", "/history", "/compact", "/newtask", "/clear", "/exit"]) expect(ui.frame()).toContain(name);
    await ui.send("/nope");
    await ui.saw("no workflow or command named /nope; /help lists them");
    expect(server.requests).toHaveLength(0);
  });

  it("a path at the start of a message is no command: the message goes to the task", async () => {
    const ui = await open([call("attempt_completion", { result: "Found it" })]);
    await ui.send("/usr/bin/env is missing here");
    await ui.saw("Found it");
    expect(ui.frame()).not.toContain("Unknown command");
    expect(JSON.stringify(server.requests[0]!.body.messages)).toContain("/usr/bin/env is missing here");
  });

  it("/mode plan and /mode act switch the mode", async () => {
    const ui = await open([]);
    await ui.send("/mode plan");
    await ui.saw(" PLAN ");
    await ui.send("/mode act");
    await ui.saw(" ACT ");
  });

  it("/checkpoints lists them; restore puts the files and the conversation back", async () => {
    const ui = await open([call("write_to_file", { path: "a.txt", content: "changed" }), call("attempt_completion", { result: "Wrote it" })], {});
    writeFileSync(path.join(workspace, "a.txt"), "original");
    await ui.send("change a.txt");
    await ui.saw("Wrote it");
    await ui.saw("3 checkpoints");
    await ui.send("/checkpoints");
    await ui.saw("task start");
    expect(ui.frame()).toContain("turn 1: write_to_file");
    // The person's own file, made after the task: the restore lists it and asks before touching it.
    writeFileSync(path.join(workspace, "AGENTS.md"), "the person's rules");
    await ui.send("/checkpoints restore 1");
    await ui.saw("Files and conversation");
    ui.key("1");
    await ui.saw("1 file the agent never touched since checkpoint 1");
    expect(ui.frame()).toContain("AGENTS.md  would be removed");
    await ui.saw("Keep them as they are");
    ui.key("1");
    await ui.saw("Files and conversation restored to checkpoint");
    expect(ui.frame()).toContain("(1 message kept)");
    expect(readFileSync(path.join(workspace, "a.txt"), "utf8")).toBe("original");
    expect(readFileSync(path.join(workspace, "AGENTS.md"), "utf8")).toBe("the person's rules");
    expect(session!.opened!.task.snapshot().messages).toHaveLength(1);
    // Nothing dropped from the list: the three, "before restore" (the way back) and the restored state.
    expect(ui.frame().replace(/\s+/g, " ")).toContain("Undo: /checkpoints restore 4 (files only)");
    expect(ui.frame()).toContain("5 checkpoints");
    await ui.send("/checkpoints restore 4");
    await ui.saw("Files only");
    ui.key("2");
    await ui.saw("Checkpoint 4's files:");
    expect(readFileSync(path.join(workspace, "a.txt"), "utf8")).toBe("changed");
    expect(readFileSync(path.join(workspace, "AGENTS.md"), "utf8")).toBe("the person's rules");
  });

  it("/history offers stored tasks and reopens the one picked", async () => {
    const ui = await open([call("attempt_completion", { result: "First task done" }), call("attempt_completion", { result: "Reopened and done" })]);
    await ui.send("the first task");
    await ui.saw("First task done");
    const firstId = session!.opened!.store.id;
    await ui.send("/clear");
    await ui.saw("Started over");
    expect(session!.opened).toBeUndefined();
    await ui.send("/history");
    await ui.saw("Pick a task to resume");
    ui.key("\r");
    await ui.saw(`Resumed task ${firstId} (completed)`);
    await ui.send("check it again");
    await ui.saw("Reopened and done");
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("check it again");
  });

  it("/newrule and workflows go to the task; /model switches the model between turns", async () => {
    mkdirSync(path.join(workspace, ".cairnrules", "workflows"), { recursive: true });
    writeFileSync(path.join(workspace, ".cairnrules", "workflows", "release.md"), "---\ndescription: Cut a release\n---\nBump the version and write the changelog.");
    const ui = await open([call("attempt_completion", { result: "Released" }), call("attempt_completion", { result: "Still fine" })]);
    ui.key("/rel");
    await ui.saw("/release [arguments]");
    await ui.saw("Cut a release");
    ui.key("\t");
    await ui.send("v2");
    await ui.saw("Released");
    expect(JSON.stringify(server.requests[0]!.body.messages)).toContain("Bump the version and write the changelog.");
    expect(JSON.stringify(server.requests[0]!.body.messages)).not.toContain("Cut a release");
    await ui.send("/model claude-haiku-4-5");
    await ui.saw("Now using anthropic/claude-haiku-4-5");
    await ui.send("and again");
    await ui.saw("Still fine");
    expect(server.requests[1]!.body.model).toBe("claude-haiku-4-5");
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("Bump the version");
    expect(existsSync(path.join(home, "tasks", session!.opened!.store.id))).toBe(true);
  });
});
