import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCairn, xmlCall } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { sleep, TuiTerminal as Terminal } from "../support/tui-terminal.js";
import { useTuiFixture } from "../support/tui-fixture.js";

/**
 * The interactive `cairn` in a real terminal: tmux runs it in a 100x40 window, the test types
 * with send-keys and reads the screen with capture-pane. The model is the scripted server in
 * this process.
 */

const fx = useTuiFixture("tui");

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}.`);
    await sleep(50);
  }
}
const call = (name: string, input: Record<string, unknown>, extra: Partial<ScriptedTurn> = {}): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], ...extra });

async function open(turns: ScriptedTurn[], args: string[] = []): Promise<Terminal> {
  fx.server = await startScriptedModelServer({ turns });
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
  fx.terminal = new Terminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" }), fx.home.dir, fx.workspace.dir);
  fx.terminal.launch(["--provider", "anthropic", "--base-url", fx.server.url, ...args]);
  return fx.terminal;
}

const requestText = (index: number) => JSON.stringify(fx.server!.requests[index]?.body.messages ?? null);

describe("cairn in a terminal", () => {
  it("types a task, approves an edit after seeing its diff, denies a command with feedback", { timeout: 60_000 }, async () => {
    writeFileSync(path.join(fx.workspace.dir, "greet.txt"), "hello\n");
    const t = await open([
      call("write_to_file", { path: "greet.txt", content: "hello, world\n" }),
      call("execute_command", { command: "touch ran.txt", requires_approval: true }),
      call("attempt_completion", { result: "Greeting updated" }),
    ]);
    await t.waitFor("describe a task, or /help");
    await t.type("Update the greeting");
    await t.press("Enter");
    const proposal = await t.waitFor("Apply this edit? greet.txt (+1 −1)");
    expect(proposal).toMatch(/1 − hello\n/);
    expect(proposal).toMatch(/1 \+ hello, world/);
    expect(readFileSync(path.join(fx.workspace.dir, "greet.txt"), "utf8")).toBe("hello\n");
    await t.press("y");
    await t.waitFor("Run this command?");
    expect(readFileSync(path.join(fx.workspace.dir, "greet.txt"), "utf8")).toBe("hello, world\n");
    await t.press("f");
    await t.waitFor("Why not");
    await t.type("do not create files");
    await t.press("Enter");
    const done = await t.waitFor("✓ Greeting updated");
    expect(done).toContain("you said: do not create files");
    expect(existsSync(path.join(fx.workspace.dir, "ran.txt"))).toBe(false);
    expect(requestText(2)).toContain("The user said: do not create files");
  });

  it("switches to Plan with Shift+Tab, approves the plan to act, and back", { timeout: 60_000 }, async () => {
    const t = await open([call("plan_mode_respond", { response: "Plan: write notes.md" }), call("write_to_file", { path: "notes.md", content: "notes\n" }), call("attempt_completion", { result: "Notes written" })], ["--auto-approve", "edit"]);
    await t.waitFor(" ACT ");
    await t.press("BTab");
    await t.waitFor(" PLAN ");
    await t.type("Plan the notes");
    await t.press("Enter");
    await t.waitFor("The plan is above. Carry it out?");
    const planTools = (fx.server!.requests[0]!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(planTools).not.toContain("write_to_file");
    await t.press("y");
    const written = await t.waitFor("✓ Notes written");
    expect(readFileSync(path.join(fx.workspace.dir, "notes.md"), "utf8")).toBe("notes\n");
    // The write ran without asking (--auto-approve edit), and its card still shows its diff.
    expect(written).toContain("✓ write notes.md (new file, 1 line)");
    expect(written).toMatch(/1 \+ notes\n/);
    await t.waitFor(" ACT ");
    await t.press("BTab");
    await t.waitFor(" PLAN ");
    await t.press("BTab");
    await t.waitFor(" ACT ");
  });

  it("Esc stops a turn, Esc again leaves; cairn lists the task and carries it on", { timeout: 60_000 }, async () => {
    const t = await open([{ delayMs: 30_000 }, call("attempt_completion", { result: "Finished after the stop" })], ["Slow task"]);
    await t.waitFor("esc to stop");
    await until(() => fx.server!.requests.length === 1, "the model request");
    await t.press("Escape");
    await t.waitFor("Stopped. Type a message to carry on");
    await t.press("Escape");
    const left = await t.waitFor("[cairn exited 0]");
    const id = /Task (\S+) is saved/.exec(left)?.[1];
    expect(id).toBeDefined();

    t.launch(["--provider", "anthropic", "--base-url", fx.server!.url]);
    await t.waitFor("Resume a recent task, or start a new one");
    // Listed, and reopened, in the words cairn history uses: a task stopped by the person is "stopped".
    expect(await t.waitFor("Slow task")).toMatch(/Slow task\s+stopped ·/);
    await t.press("Down", "Enter");
    await t.waitFor(`Resumed task ${id} (stopped)`);
    await t.type("carry on please");
    await t.press("Enter");
    await t.waitFor("✓ Finished after the stop");
    const last = requestText(fx.server!.requests.length - 1);
    expect(last).toContain("was stopped by the user and has now been resumed");
    expect(last).toContain("carry on please");
    const meta = JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", id!, "metadata.json"), "utf8")) as { status: string };
    expect(meta.status).toBe("completed");
  });

  it("typing at the start picker (stored tasks listed) starts a new task with every key typed", { timeout: 60_000 }, async () => {
    const t = await open([call("attempt_completion", { result: "First done" }), call("attempt_completion", { result: "Hello file done" })], ["First task"]);
    await t.waitFor("✓ First done");
    await t.press("Escape", "Escape");
    await t.waitFor("[cairn exited 0]");

    t.launch(["--provider", "anthropic", "--base-url", fx.server!.url]);
    await t.waitFor("Resume a recent task, or start a new one");
    // Key by key, as a person types, then the rest in one burst.
    for (const key of "wri") await t.type(key);
    await t.type("te a hello file");
    await t.waitFor("write a hello file");
    await t.press("Enter");
    await t.waitFor("✓ Hello file done");
    expect(fx.server!.requests).toHaveLength(2);
    expect(requestText(1)).toContain("write a hello file");
  });

  it("runs a task sent with its Enter in one burst (send-keys \"task\" Enter)", { timeout: 60_000 }, async () => {
    const t = await open([call("attempt_completion", { result: "Said hello" })]);
    await t.waitFor("describe a task, or /help");
    await t.burst("Say hello to the team", "Enter");
    await t.waitFor("✓ Said hello");
    expect(fx.server!.requests).toHaveLength(1);
    expect(requestText(0)).toContain("Say hello to the team");
  });

  it("keeps a pasted text's line breaks in the input and sends it only on Enter", { timeout: 60_000 }, async () => {
    const t = await open([call("attempt_completion", { result: "Read both lines" })]);
    await t.waitFor("describe a task, or /help");
    await t.paste("first line of the paste\nsecond line of the paste\n");
    const typed = await t.waitFor("second line of the paste");
    expect(typed).toMatch(/first line of the paste\s*│\n│\s+second line of the paste/);
    await sleep(500);
    expect(fx.server!.requests).toHaveLength(0);
    await t.type("and a third");
    await t.press("Enter");
    await t.waitFor("✓ Read both lines");
    expect(requestText(0)).toContain("first line of the paste\\nsecond line of the paste\\nand a third");
  });

  it("shows xml-protocol tool calls as cards, never as XML, and replays a resumed task's prose before its cards", { timeout: 90_000 }, async () => {
    const say = (text: string): ScriptedTurn => ({ content: [{ type: "text", text }] });
    const t = await open(
      [
        say(`I will write the greeting file first.\n${xmlCall("write_to_file", { path: "hello.txt", content: "hi" })}`),
        say(xmlCall("attempt_completion", { result: "Greeting written" })),
      ],
      ["--protocol", "xml", "--auto-approve", "edit", "Write the greeting"],
    );
    const live = await t.waitFor("✓ Greeting written");
    expect(live).not.toMatch(/<\/?(write_to_file|attempt_completion|result|path|content)>/);
    expect(live.indexOf("I will write the greeting file first.")).toBeLessThan(live.indexOf("✓ write hello.txt"));
    expect(readFileSync(path.join(fx.workspace.dir, "hello.txt"), "utf8")).toBe("hi");
    await t.press("Escape", "Escape");
    const left = await t.waitFor("[cairn exited 0]");
    const id = /Task (\S+) is saved/.exec(left)?.[1];
    expect(id).toBeDefined();

    t.launch(["--provider", "anthropic", "--base-url", fx.server!.url, "--protocol", "xml"]);
    await t.waitFor("Resume a recent task, or start a new one");
    await t.press("Down", "Enter");
    const resumed = await t.waitFor(`Resumed task ${id}`);
    // The second session's screen, from its banner on.
    const replay = resumed.slice(resumed.lastIndexOf("cairn · anthropic/"));
    expect(replay).not.toMatch(/<\/?(write_to_file|attempt_completion|result|path|content)>/);
    const prose = replay.indexOf("I will write the greeting file first.");
    expect(prose).toBeGreaterThan(-1);
    expect(prose).toBeLessThan(replay.indexOf("✓ write hello.txt"));
  });

  it("two Escapes that reach it in one read (a busy machine) leave, as two presses do", { timeout: 60_000 }, async () => {
    const t = await open([call("attempt_completion", { result: "Done here" })], ["Do it"]);
    await t.waitFor("✓ Done here");
    await t.waitFor(/describe a task/);
    await t.burst("Escape", "Escape");
    await t.waitFor("[cairn exited 0]");
  });

  it("offers an edit that will fail with why, not a made-up diff, and the clock stops while the person decides", { timeout: 60_000 }, async () => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "alpha\nbeta\n");
    const diff = "------- SEARCH\ngamma\n=======\ndelta\n+++++++ REPLACE";
    const t = await open([call("replace_in_file", { path: "notes.txt", diff }), call("attempt_completion", { result: "Left notes alone" })], ["Rename gamma"]);
    const asked = await t.waitFor("Apply this edit? notes.txt");
    expect(asked).toContain("this edit will fail: SEARCH block 1 not found");
    expect(asked).not.toContain("+0 −0");
    const clock = (screen: string) => /working (\d+)s \(paused while you decide\)/.exec(screen)?.[1];
    const first = clock(await t.waitFor(/working \d+s \(paused while you decide\)/));
    await sleep(2_500);
    expect(clock(t.screen())).toBe(first);
    await t.press("n");
    await t.waitFor("✓ Left notes alone");
    expect(readFileSync(path.join(fx.workspace.dir, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
  });

  it("\"always allow\" for the workspace saves the rule: cairn permissions lists it, and a new task's matching edit runs without asking", { timeout: 90_000 }, async () => {
    const t = await open(
      [
        call("write_to_file", { path: "first.txt", content: "one\n" }),
        call("write_to_file", { path: "second.txt", content: "two\n" }),
        call("attempt_completion", { result: "Both written" }),
        call("write_to_file", { path: "third.txt", content: "three\n" }),
        call("attempt_completion", { result: "Third written" }),
      ],
      ["Write two files"],
    );
    const asked = await t.waitFor("Apply this new file? first.txt (new file, 1 line)");
    const rule = /Yes, and always allow (.+) in this workspace \(w\)/.exec(asked)?.[1];
    expect(rule).toMatch(/^write_to_file\(/);
    expect(existsSync(path.join(fx.workspace.dir, "first.txt"))).toBe(false);
    await t.press("w");
    const done = await t.waitFor("✓ Both written");
    expect(done).toMatch(/write second\.txt.*always allowed/);
    expect(done).not.toContain("Apply this new file? second.txt");
    expect(readFileSync(path.join(fx.workspace.dir, "second.txt"), "utf8")).toBe("two\n");

    // Saved for this workspace, in CAIRN_HOME (never in the repository), and listed by cairn permissions.
    const env = cleanEnv({ CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" });
    const listed = await runCairn(["permissions", "--cwd", fx.workspace.dir], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(`1. ${rule}  (this workspace)\n`);
    expect(existsSync(path.join(fx.workspace.dir, ".cairn"))).toBe(false);

    // A new task in the same workspace: the saved rule answers, nobody is asked.
    await t.press("Escape", "Escape");
    await t.waitFor("[cairn exited 0]");
    t.launch(["--provider", "anthropic", "--base-url", fx.server!.url, "Write the third"]);
    const third = await t.waitFor("✓ Third written");
    expect(third).toMatch(/write third\.txt.*always allowed/);
    expect(third).not.toContain("Apply this new file? third.txt");
    expect(readFileSync(path.join(fx.workspace.dir, "third.txt"), "utf8")).toBe("three\n");
  });
});

describe("cairn in a terminal: a pasted image path", () => {
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

  it("attaches the picture, shows it as [image: …], and sends it to the model with the next message", { timeout: 60_000 }, async () => {
    writeFileSync(path.join(fx.workspace.dir, "screen shot.png"), png);
    const t = await open([call("attempt_completion", { result: "Saw the screenshot" })]);
    await t.waitFor("describe a task, or /help");
    // As a terminal pastes a file dropped on it: quoted, with the bracketed-paste markers.
    await t.paste(`'${path.join(fx.workspace.dir, "screen shot.png")}'`);
    await t.waitFor("[image: screen shot.png] goes with your next message");
    expect(t.screen()).not.toContain(`'${path.join(fx.workspace.dir, "screen shot.png")}'`);
    await t.type("what does the screenshot show?");
    await t.press("Enter");
    const shown = await t.waitFor("✓ Saw the screenshot");
    expect(shown).toContain("[image: screen shot.png]");
    expect(shown).not.toContain("goes with your next message");
    const first = (fx.server!.requests[0]!.body.messages as Array<{ content: Array<Record<string, unknown>> }>)[0]!;
    expect(first.content).toContainEqual(expect.objectContaining({ type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } }));
    expect(JSON.stringify(first.content)).toContain("what does the screenshot show?");
  });

  it("a pasted path that is not an image stays text in the message", { timeout: 60_000 }, async () => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "notes\n");
    const t = await open([call("attempt_completion", { result: "Read the path" })]);
    await t.waitFor("describe a task, or /help");
    await t.type("look at ");
    await t.paste(path.join(fx.workspace.dir, "notes.txt"));
    await t.waitFor(`look at ${path.join(fx.workspace.dir, "notes.txt")}`);
    expect(t.screen()).not.toContain("[image:");
    await t.press("Enter");
    await t.waitFor("✓ Read the path");
    expect(requestText(0)).toContain(`look at ${path.join(fx.workspace.dir, "notes.txt")}`);
    expect(requestText(0)).not.toContain('"type":"image"');
  });
});
