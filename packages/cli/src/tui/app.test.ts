import { resolveSettings } from "@cairn/core";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
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

/** The approval flow, the mode toggle, questions, plans and stopping, driven through the real App and a real Task. */

let server: ScriptedModelServer;
let workspace: string;
let home: string;
let app: ReturnType<typeof render> | undefined;
let session: SessionController | undefined;

const keys = { enter: "\r", shiftTab: "\u001b[Z", esc: "\u001b", down: "\u001b[B" };

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-tui-ws-")));
  home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-tui-home-")));
  writeFileSync(path.join(home, "settings.json"), JSON.stringify({ checkpoints: false }));
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

const call = (name: string, input: Record<string, unknown>, extra: Partial<ScriptedTurn> = {}): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], ...extra });

async function open(turns: ScriptedTurn[], flags: string[] = []): Promise<{ frame: () => string; type: (text: string) => Promise<void> }> {
  server = await startScriptedModelServer({ turns });
  const args = parseRunArgs(["--provider", "anthropic", "--base-url", server.url, "--cwd", workspace, ...flags], workspace) as RunArgs;
  const env = { ANTHROPIC_API_KEY: "k", CAIRN_HOME: home };
  const view = new SessionView({ frameMs: 0, columns: 100, rows: 40 });
  session = new SessionController(args, { stdout: () => {}, stderr: () => {}, env }, view, resolveSettings({ cwd: args.cwd, env, overrides: overridesOf(args) }));
  app = render(createElement(App, { session, theme: themeFor({}) }));
  const frame = () => stripAnsi(app!.lastFrame() ?? "");
  const type = async (text: string) => {
    app!.stdin.write(text);
    await tick();
  };
  await tick();
  return { frame, type };
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

async function waitFor(check: () => boolean, what: string, frame: () => string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}. Screen:\n${frame()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const sawText = (frame: () => string, text: string) => waitFor(() => frame().includes(text), JSON.stringify(text), frame);

describe("approval flow", () => {
  it("shows the exact diff before the edit runs, writes the file only after Yes", async () => {
    writeFileSync(path.join(workspace, "a.txt"), "one\ntwo\nthree\n");
    const ui = await open([call("write_to_file", { path: "a.txt", content: "one\n2\nthree\n" }), call("attempt_completion", { result: "Changed line two" })]);
    await ui.type("change line two");
    await ui.type(keys.enter);
    await sawText(ui.frame, "Apply this edit? a.txt (+1 −1)");
    const screen = ui.frame();
    expect(screen).toContain("Proposed change to a.txt (+1 −1)");
    expect(screen).toMatch(/2 − two/);
    expect(screen).toMatch(/2 \+ 2/);
    expect(readFileSync(path.join(workspace, "a.txt"), "utf8")).toBe("one\ntwo\nthree\n");
    await ui.type("y");
    await sawText(ui.frame, "Changed line two");
    expect(readFileSync(path.join(workspace, "a.txt"), "utf8")).toBe("one\n2\nthree\n");
    expect(ui.frame()).toContain("✓ write a.txt (+1 −1)");
  });

  it("an edit that will fail is offered with why, not an empty +0 −0 diff; its card says why it failed", async () => {
    writeFileSync(path.join(workspace, "a.txt"), "one\ntwo\n");
    const diff = "------- SEARCH\nthree\n=======\n3\n+++++++ REPLACE";
    const ui = await open([call("replace_in_file", { path: "a.txt", diff }), call("attempt_completion", { result: "Gave up" })]);
    await ui.type("change three");
    await ui.type(keys.enter);
    await sawText(ui.frame, "Apply this edit? a.txt");
    const screen = ui.frame();
    expect(screen).toContain("this edit will fail: SEARCH block 1 not found");
    expect(screen).not.toContain("+0 −0");
    await ui.type("y");
    await sawText(ui.frame, "Gave up");
    expect(ui.frame()).toMatch(/✗ edit a\.txt\n\s+replace_in_file did not change a\.txt: block 1 of 1 failed/);
    expect(readFileSync(path.join(workspace, "a.txt"), "utf8")).toBe("one\ntwo\n");
  });

  it("denies a command with feedback: the command never runs and the model reads why", async () => {
    const ui = await open([
      call("execute_command", { command: "touch ran.txt", requires_approval: true }),
      call("attempt_completion", { result: "Left it alone" }),
    ]);
    await ui.type("clean up");
    await ui.type(keys.enter);
    await sawText(ui.frame, "Run this command?");
    expect(ui.frame()).toContain("$ touch ran.txt");
    await ui.type("f");
    await sawText(ui.frame, "Why not");
    await ui.type("use git clean instead");
    await ui.type(keys.enter);
    await sawText(ui.frame, "Left it alone");
    expect(existsSync(path.join(workspace, "ran.txt"))).toBe(false);
    expect(ui.frame()).toContain("you said: use git clean instead");
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("The user said: use git clean instead");
  });

  it('"always allow" approves later calls of the same kind for this task without asking', async () => {
    const ui = await open([
      call("write_to_file", { path: "a.txt", content: "A" }),
      call("write_to_file", { path: "b.txt", content: "B" }),
      call("attempt_completion", { result: "Both written" }),
    ]);
    await ui.type("write two files");
    await ui.type(keys.enter);
    await sawText(ui.frame, "Apply this new file? a.txt");
    await ui.type("a");
    await sawText(ui.frame, "Both written");
    expect(readFileSync(path.join(workspace, "b.txt"), "utf8")).toBe("B");
    expect(ui.frame()).not.toContain("Apply this new file? b.txt");
    // No approval was asked for b.txt, yet its card shows its diff (carried on its running update).
    expect(ui.frame()).toContain("✓ write b.txt (new file, 1 line) · always allowed");
    expect(ui.frame()).toMatch(/1 \+ B\n/);
    expect(ui.frame()).not.toContain("Created b.txt");
  });
});

describe("modes", () => {
  it("Shift+Tab switches to Plan and back; a task started in Plan is offered no edit tools", async () => {
    const ui = await open([call("plan_mode_respond", { response: "Plan: edit a.txt" }), call("attempt_completion", { result: "Done" })]);
    expect(ui.frame()).toContain(" ACT ");
    await ui.type(keys.shiftTab);
    await sawText(ui.frame, " PLAN ");
    await ui.type("make a plan");
    await ui.type(keys.enter);
    await sawText(ui.frame, "The plan is above. Carry it out?");
    const tools = (server.requests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(tools).toContain("plan_mode_respond");
    expect(tools).not.toContain("write_to_file");
    expect(ui.frame()).toContain("Plan: edit a.txt");
    await ui.type("y");
    await sawText(ui.frame, "Now in ACT mode");
    await sawText(ui.frame, "Done");
    expect((server.requests[1]!.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain("write_to_file");
    await ui.type(keys.shiftTab);
    await sawText(ui.frame, " PLAN ");
    await ui.type(keys.shiftTab);
    await sawText(ui.frame, " ACT ");
  });

  it("a mode chosen during a turn is applied when the turn ends", async () => {
    const ui = await open([{ content: [{ type: "text", text: "thinking slowly" }, { type: "tool_use", name: "attempt_completion", input: { result: "ok" } }], chunkSize: 1, chunkDelayMs: 40 }]);
    await ui.type("go");
    await ui.type(keys.enter);
    await sawText(ui.frame, "esc to stop");
    await ui.type(keys.shiftTab);
    await sawText(ui.frame, "ACT → PLAN");
    await waitFor(() => !ui.frame().includes("esc to stop"), "the turn to end", ui.frame);
    await sawText(ui.frame, " PLAN ");
    expect(session!.opened!.task.snapshot().mode).toBe("plan");
  });
});

describe("questions", () => {
  it("offers the model's options as a pick list and sends the one picked", async () => {
    const ui = await open([call("ask_followup_question", { question: "Which name?", options: ["alpha", "beta"] }), call("attempt_completion", { result: "Named it" })]);
    await ui.type("name it");
    await ui.type(keys.enter);
    await sawText(ui.frame, "Another answer…");
    await ui.type(keys.down);
    await ui.type(keys.enter);
    await sawText(ui.frame, "Named it");
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("<answer>\\nbeta\\n</answer>");
  });
});

describe("typing and pasting", () => {
  it("text and Enter in one read send the task; a bracketed paste keeps its lines until Enter", async () => {
    const ui = await open([call("attempt_completion", { result: "First done" }), call("attempt_completion", { result: "Second done" })]);
    await ui.type("the first task\r");
    await sawText(ui.frame, "First done");
    expect(JSON.stringify(server.requests[0]!.body.messages)).toContain("the first task");
    await ui.type("\u001b[200~line one\rline two\r\u001b[201~");
    await sawText(ui.frame, "line two");
    expect(server.requests).toHaveLength(1);
    await ui.type("end" + keys.enter);
    await sawText(ui.frame, "Second done");
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("line one\\nline two\\nend");
  });
});

describe("pasting an image's path", () => {
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
  const paste = (text: string) => `\u001b[200~${text}\u001b[201~`;
  const images = (index: number) => JSON.stringify(server.requests[index]!.body.messages).match(/"type":"image"/g)?.length ?? 0;

  it("attaches the picture (shown as a chip) and sends it with the next message; a path that is not an image stays text", async () => {
    writeFileSync(path.join(workspace, "shot.png"), png);
    writeFileSync(path.join(workspace, "notes.txt"), "notes\n");
    const ui = await open([call("attempt_completion", { result: "Saw the pixel" })]);
    await ui.type(paste(path.join(workspace, "shot.png")));
    await sawText(ui.frame, "[image: shot.png] goes with your next message");
    expect(ui.frame()).not.toContain(path.join(workspace, "shot.png"));
    await ui.type("what ");
    await ui.type(paste(path.join(workspace, "notes.txt")));
    await sawText(ui.frame, path.join(workspace, "notes.txt"));
    expect(server.requests).toHaveLength(0);
    await ui.type(" says" + keys.enter);
    await sawText(ui.frame, "Saw the pixel");
    const first = server.requests[0]!.body.messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(first[0]!.content).toContainEqual(expect.objectContaining({ type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } }));
    expect(JSON.stringify(first)).toContain(`what ${path.join(workspace, "notes.txt")} says`);
    expect(ui.frame()).not.toContain("goes with your next message");
    expect(ui.frame()).toContain("[image: shot.png]");
  });

  it("Backspace on an empty input takes the picture off: nothing is sent with the message", async () => {
    writeFileSync(path.join(workspace, "shot.png"), png);
    const ui = await open([call("attempt_completion", { result: "No picture" })]);
    await ui.type(paste(path.join(workspace, "shot.png")));
    await sawText(ui.frame, "[image: shot.png]");
    await ui.type("\u007f");
    await waitFor(() => !ui.frame().includes("[image: shot.png]"), "the chip to go", ui.frame);
    await ui.type("hello" + keys.enter);
    await sawText(ui.frame, "No picture");
    expect(images(0)).toBe(0);
  });

  it("a model that does not take images: the paste is refused in one line and no picture is sent", async () => {
    writeFileSync(path.join(workspace, "shot.png"), png);
    const ui = await open([call("attempt_completion", { result: "Text only" })], ["--model", "text-only-model"]);
    await ui.type(paste(path.join(workspace, "shot.png")));
    await sawText(ui.frame, "shot.png not attached: text-only-model does not take images");
    expect(ui.frame()).not.toContain("[image: shot.png]");
    await ui.type("hello" + keys.enter);
    await sawText(ui.frame, "Text only");
    expect(images(0)).toBe(0);
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain(png.toString("base64"));
  });
});

describe("typing ahead", () => {
  it("Enter during a turn queues the message for when it ends; a prompt keeps the draft", async () => {
    const ui = await open([
      { content: [{ type: "text", text: "working on it" }, { type: "tool_use", name: "write_to_file", input: { path: "a.txt", content: "A" } }], chunkSize: 1, chunkDelayMs: 30 },
      call("attempt_completion", { result: "First done" }),
      call("attempt_completion", { result: "Second done" }),
    ]);
    await ui.type("first");
    await ui.type(keys.enter);
    await sawText(ui.frame, "esc to stop");
    await ui.type("second");
    await ui.type(keys.enter);
    await sawText(ui.frame, "queued: second");
    await ui.type("a draft");
    await sawText(ui.frame, "Apply this new file? a.txt");
    expect(ui.frame()).toContain("a draft");
    await ui.type("y");
    await sawText(ui.frame, "Second done");
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain("second");
    expect(ui.frame()).toContain("a draft");
  });
});

describe("stopping", () => {
  it("Esc stops the turn (the task stays open), the next message carries it on, Esc twice leaves", async () => {
    const ui = await open([{ delayMs: 30_000 }, call("attempt_completion", { result: "Carried on" })]);
    let left = false;
    session!.onExit(() => (left = true));
    await ui.type("slow task");
    await ui.type(keys.enter);
    await waitFor(() => server.requests.length === 1, "the model request", ui.frame);
    await ui.type(keys.esc);
    await sawText(ui.frame, "Stopped. Type a message to carry on");
    expect(left).toBe(false);
    await ui.type("go on");
    await ui.type(keys.enter);
    await sawText(ui.frame, "Carried on");
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain("The task was stopped by the user");
    await ui.type(keys.esc);
    await sawText(ui.frame, "Press Esc or Ctrl-C again to leave.");
    await ui.type(keys.esc);
    await waitFor(() => left, "the session to end", ui.frame);
    const stored = JSON.parse(readFileSync(path.join(home, "tasks", session!.opened!.store.id, "metadata.json"), "utf8")) as { status: string };
    expect(stored.status).toBe("completed");
  });
});
