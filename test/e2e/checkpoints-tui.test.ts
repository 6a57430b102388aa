import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { TuiTerminal } from "../support/tui-terminal.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useTuiFixture } from "../support/tui-fixture.js";

/** Checkpoints in the interactive `cairn`'s conversation, in a real terminal (tmux, 100x40). */

const fx = useTuiFixture("cp-tui", (fx) => {
  writeFileSync(path.join(fx.workspace.dir, "greeting.txt"), "hello world\nsecond line\n");
});

const edit = (search: string, replace: string): ScriptedTurn => ({
  content: [{ type: "tool_use", name: "replace_in_file", input: { path: "greeting.txt", diff: `------- SEARCH\n${search}\n=======\n${replace}\n+++++++ REPLACE` } }],
});

describe("checkpoints in the terminal's conversation", () => {
  it("a dim line after each edit's step says its number and how to go back to it, live and when the task is reopened", { timeout: 120_000 }, async () => {
    fx.server = await startScriptedModelServer({
      turns: [edit("hello world", "hello tui"), edit("second line", "second tui line"), { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Both lines changed" } }] }],
    });
    const provider = ["--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "edit"];
    const t = (fx.terminal = new TuiTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" }), fx.home.dir, fx.workspace.dir));
    t.launch(provider);
    await t.waitFor("describe a task, or /help");
    await t.type("Change both lines");
    await t.press("Enter");
    const screen = await t.waitFor("✓ Both lines changed", 60_000);
    // The task's start is checkpoint 1; each edit's step the next, its line after its card.
    const run = screen.slice(screen.indexOf("Change both lines"));
    const first = run.indexOf("checkpoint 2 · 1 file · /checkpoints restore 2");
    const second = run.indexOf("checkpoint 3 · 1 file · /checkpoints restore 3");
    expect(first).toBeGreaterThan(run.indexOf("hello tui"));
    expect(second).toBeGreaterThan(first);
    expect(second).toBeGreaterThan(run.indexOf("second tui line"));
    expect(run).not.toMatch(/checkpoint 1 ·/); // the task's start marks no step
    // Dim, as the other notes between the steps are (tmux writes an attribute where it changes: after the edit's card).
    expect(t.screen(true)).toMatch(/\u001b\[(?:[0-9;]*;)?2m(?:\u001b\[[0-9;]*m)*· checkpoint 3 · 1 file/);

    // Reopened from the pick list, its record shows the same lines in the same places.
    t.launch(provider);
    await t.waitFor("Resume a recent task, or start a new one");
    await t.press("Down", "Enter");
    const resumed = await t.waitFor(/Resumed task \S+/);
    const replayed = resumed.slice(resumed.lastIndexOf("❯ Change both lines"), resumed.lastIndexOf("Resumed task"));
    expect(replayed.indexOf("checkpoint 2 · 1 file · /checkpoints restore 2")).toBeGreaterThan(replayed.indexOf("hello tui"));
    expect(replayed.indexOf("checkpoint 3 · 1 file · /checkpoints restore 3")).toBeGreaterThan(replayed.indexOf("checkpoint 2 ·"));
  });

  it("after a restore, which adds two checkpoints of its own, the reopened task still numbers each step as cairn checkpoints does", { timeout: 120_000 }, async () => {
    fx.server = await startScriptedModelServer({
      turns: [edit("hello world", "hello tui"), edit("second line", "second tui line"), { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Both lines changed" } }] }],
    });
    const provider = ["--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "edit"];
    const env = cleanEnv({ CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" });
    const done = await runCairn(["run", ...provider, "--cwd", fx.workspace.dir, "Change both lines"], { env });
    expect(done.code, done.stderr).toBe(0);
    const [id] = readdirSync(path.join(fx.home.dir, "tasks"));
    const restored = await runCairn(["checkpoints", "restore", id!, "2", "--workspace"], { env });
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "greeting.txt"), "utf8")).toBe("hello tui\nsecond line\n");
    const listed = await runCairn(["checkpoints", id!], { env });
    // The task's start, two steps, the end, then the restore's "before restore" and "restored to checkpoint 2".
    expect(listed.stdout).toMatch(/\b6\b.*restored to checkpoint 2/);

    const t = (fx.terminal = new TuiTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" }), fx.home.dir, fx.workspace.dir));
    t.launch(provider);
    await t.waitFor("Resume a recent task, or start a new one");
    await t.press("Down", "Enter");
    const resumed = await t.waitFor(/Resumed task \S+/);
    const replayed = resumed.slice(resumed.lastIndexOf("❯ Change both lines"), resumed.lastIndexOf("Resumed task"));
    expect(replayed).toContain("checkpoint 2 · 1 file · /checkpoints restore 2");
    expect(replayed).toContain("checkpoint 3 · 1 file · /checkpoints restore 3");
    expect(replayed).toContain("Files restored to checkpoint 2.");
  });
});
