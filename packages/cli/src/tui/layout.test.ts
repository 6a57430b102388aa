import { resolveSettings } from "@cairn/core";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { createElement } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { overridesOf, parseRunArgs, type RunArgs } from "@cairn/host/run-args";
import { emptyEditor, setText } from "./input-editor.js";
import { inputRows, liveBudget, promptRows } from "./layout.js";
import { EventPresenter } from "./present-events.js";
import { SessionController } from "./session-controller.js";
import { SessionView } from "./session-view.js";
import { themeFor } from "./theme.js";
import type { LiveState, ToolCard } from "./view-types.js";

// ink as a terminal gets it: loaded with CI unset, as `cairn` loads it (see commands/interactive.ts).
const ci = process.env.CI;
delete process.env.CI;
const { render } = await import("ink");
const { App } = await import("./app.js");
if (ci !== undefined) process.env.CI = ci;

let home: string;
beforeEach(() => {
  home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-layout-")));
  writeFileSync(path.join(home, "settings.json"), JSON.stringify({ checkpoints: false }));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const live = (over: Partial<LiveState> = {}): LiveState => ({ text: "", committed: false, reasoning: "", reasoningWords: 0, tools: [], stopping: false, ...over });
const command = (output: string): ToolCard => ({ id: "c", name: "execute_command", kind: "command", summary: "$ make", input: {}, status: "running", output, outputLines: 50 });

describe("row budgets", () => {
  it("the reply gets what the cards leave, never more than its own cap", () => {
    expect(liveBudget(live({ text: "x" }), [], 20, 16, 5)).toEqual({ textRows: 16, outputLines: 5 });
    const card = command("a\n".repeat(50));
    const budget = liveBudget(live({ text: "x", tools: [card], busy: { since: 0, label: "w" } }), [card], 10, 16, 15);
    // 10 rows: busy 1, card header 1, then output (+ its marker) leaving 3 for the reply.
    expect(budget.outputLines).toBe(4);
    expect(budget.textRows).toBe(2);
  });

  it("a tiny terminal gets no output lines rather than a region taller than the screen", () => {
    const card = command("a\n".repeat(50));
    expect(liveBudget(live({ tools: [card] }), [card], 2, 16, 15)).toEqual({ textRows: 0, outputLines: 0 });
  });

  it("prompts and the input are counted with their wrapped lines", () => {
    const request = { tool_use_id: "1", tool: "execute_command", category: "all-commands" as const, summary: "$ x", suggested_rule: "execute_command(x *)", input: { command: "x".repeat(150) } };
    // Border, the command wrapped on 3 rows, the question and reason lines, four choices.
    expect(promptRows({ kind: "approval", request, resolve: () => {} }, 80)).toBe(2 + 3 + 2 + 4);
    expect(inputRows(emptyEditor, 80, 8, 0)).toBe(3);
    expect(inputRows(setText(emptyEditor, "a\nb\nc\nd\ne\nf\ng\nh\ni\nj"), 80, 4, 0)).toBe(2 + 4 + 1);
  });
});

class Screen extends Writable {
  isTTY = true;
  columns = 80;
  rows = 24;
  written = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.written += chunk.toString();
    done();
  }
}

function keyboard(): NodeJS.ReadStream & Readable {
  const stdin = new Readable({ read() {} });
  Object.assign(stdin, { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
  return stdin as NodeJS.ReadStream & Readable;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

describe("an 80x24 terminal under load", () => {
  it("never clears the screen to redraw the history: the live part always fits", async () => {
    const args = parseRunArgs(["--provider", "anthropic", "--cwd", home], home) as RunArgs;
    const env = { ANTHROPIC_API_KEY: "k", CAIRN_HOME: home };
    const view = new SessionView({ columns: 80, rows: 24, frameMs: 0 });
    const session = new SessionController(args, { stdout: () => {}, stderr: () => {}, env }, view, resolveSettings({ cwd: args.cwd, env, overrides: overridesOf(args) }));
    const screen = new Screen();
    const stdin = keyboard();
    const app = render(createElement(App, { session, theme: themeFor({}) }), { stdout: screen as unknown as NodeJS.WriteStream, stdin, exitOnCtrlC: false, patchConsole: false });
    const presenter = new EventPresenter(view);
    try {
      // A draft of many lines, a long streaming reply, thinking, a command with lots of output, expanded.
      stdin.push("line one\u001b\rline two\u001b\rthree\u001b\rfour\u001b\rfive\u001b\rsix\u001b\rseven");
      view.live.busy = { since: Date.now(), label: "working" };
      presenter.apply({ type: "reasoning_delta", message_id: "m", text: "thinking hard " });
      for (let i = 0; i < 60; i++) presenter.apply({ type: "text_delta", message_id: "m", text: `word ${i} `.repeat(i % 3 === 0 ? 30 : 2) + (i % 5 === 0 ? "\n" : "") });
      await settle();
      presenter.apply({ type: "tool_call", tool_use_id: "t", name: "execute_command", kind: "command", input: { command: "make" }, summary: "$ make", status: "pending", locations: [] });
      for (let i = 0; i < 100; i++) presenter.apply({ type: "tool_output", tool_use_id: "t", text: `${"output ".repeat(i % 4 === 0 ? 20 : 1)}${i}\n` });
      stdin.push("\u000f");
      await settle();
      expect(view.expanded).toBe(true);
      const rm = `rm -rf ${"build/".repeat(40)}`;
      const preview = { type: "command" as const, command: rm, cwd: home, risk: "needs_approval" as const, reasons: ["deletes files"], sandbox: { mode: "off" as const, reason: "off in this test" } };
      void session.host.approve({ tool_use_id: "t2", tool: "execute_command", category: "all-commands", summary: "$ rm", suggested_rule: "execute_command(x *)", input: { command: rm }, preview }, new AbortController().signal);
      await settle();
      expect(screen.written).toContain("Run this command?");
      expect(screen.written).toContain("output 99");
      expect(screen.written).not.toContain("\u001b[2J");
    } finally {
      app.unmount();
      view.dispose();
    }
  });
});
