import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv } from "../support/cairn-cli.js";
import { sleep, TuiTerminal } from "../support/tui-terminal.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useTuiFixture } from "../support/tui-fixture.js";

/**
 * A reply rendered as markdown in the interactive `cairn`, in a real terminal: tmux runs it in a
 * 100x40 window, capture-pane reads the screen (-e with its colours).
 */

const fx = useTuiFixture("md-tui");

async function open(turns: ScriptedTurn[], env: Record<string, string> = {}): Promise<TuiTerminal> {
  fx.server = await startScriptedModelServer({ turns });
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
  fx.terminal = new TuiTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k", ...env }), fx.home.dir, fx.workspace.dir);
  fx.terminal.launch(["--provider", "anthropic", "--base-url", fx.server.url]);
  return fx.terminal;
}

const sample = "## Plan\n\n**greet** the `user`:\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst x: number = 1;\n```";
/** Longer than the live region, so the reply moves to the scrollback in parts while it streams, one cut inside the code. */
const codeLines = Array.from({ length: 40 }, (_, i) => `let n${i} = "**${i}**";`);
const long = `${sample}\n\nAnd the rest:\n\n\`\`\`ts\n${codeLines.join("\n")}\n\`\`\`\n\n> a [link](https://example.com/docs) in a quote\n\n<script>alert(1)</script>`;

const reply = (text: string): ScriptedTurn[] => [
  { content: [{ type: "text", text }, { type: "tool_use", name: "attempt_completion", input: { result: "Replied" } }] },
];

// eslint-disable-next-line no-control-regex
const magenta = /\u001b\[(?:[0-9;]*;)?35m(?:\u001b\[[0-9;]*m)*const/;

describe("a reply as markdown in the terminal", () => {
  it("shows no markup (##, **, fences), the table boxed, the link with its URL, raw HTML as text, code coloured", { timeout: 60_000 }, async () => {
    const t = await open(reply(long));
    await t.waitFor("describe a task, or /help");
    await t.type("Plan the greeting");
    await t.press("Enter");
    const screen = await t.waitFor("✓ Replied");
    const reply_ = screen.slice(screen.indexOf("Plan the greeting"));
    expect(reply_).not.toMatch(/##|\*\*greet|```|\|---/);
    expect(reply_).toMatch(/^ *Plan *\n\ngreet the user:\n\n1\. one/m);
    expect(reply_).toContain("greet the user:");
    expect(reply_).toMatch(/1\. one\n *2\. two/);
    expect(reply_).toMatch(/│ a +│ b +│\n.*├/);
    expect(reply_).toContain("const x: number = 1;");
    // Every code line, as written (its ** kept: code, not emphasis), with one language label per block.
    for (const line of codeLines) expect(reply_).toContain(line);
    expect(reply_.match(/^ *ts *$/gm)).toHaveLength(2);
    expect(reply_).toMatch(/And the rest:\n\nts\n  let n0 = /);
    expect(reply_).toContain("│ a link (https://example.com/docs) in a quote");
    expect(reply_).toContain("<script>alert(1)</script>");
    // Colour: the keyword of the code in magenta.
    expect(t.screen(true)).toMatch(magenta);
  });

  it("NO_COLOR: the same reply without colours, the words all there", { timeout: 60_000 }, async () => {
    const t = await open(reply(sample), { NO_COLOR: "1" });
    await t.waitFor("describe a task, or /help");
    await t.type("Plan the greeting");
    await t.press("Enter");
    await t.waitFor("✓ Replied");
    const coloured = t.screen(true);
    expect(coloured).toContain("const x: number = 1;");
    // eslint-disable-next-line no-control-regex
    expect(coloured).not.toMatch(/\u001b\[(?:[0-9;]*;)?3[1-6](?:;[0-9;]*)?m/);
    expect(t.screen()).not.toMatch(/##|\*\*|```/);
  });

  it("a reply's own escape sequences (raw or as &#27; references) do not reach the terminal: the window title stays (a printf in the same tmux sets it)", { timeout: 60_000 }, async () => {
    const t = await open(reply("## Title\n\nText \u001b]2;PWNED-TITLE\u0007 **bold \u001b]2;PWNED-TITLE\u0007**\n\n```sh\necho \u001b]2;PWNED-TITLE\u0007\n```\n\n| h |\n|---|\n| \u001b]2;PWNED-TITLE\u0007 |\n\nSpelled as references: &#27;]2;PWNED-TITLE&#7; and **&#x1b;]2;PWNED-TITLE&#x07;**"));
    await t.waitFor("describe a task, or /help");
    await t.type("Say it");
    await t.press("Enter");
    await t.waitFor("✓ Replied");
    expect(t.tmux("display-message", "-p", "-t", "main", "#{pane_title}")).not.toContain("PWNED");
    expect(t.screen()).not.toContain("PWNED");
    // Positive control: the same sequence printed by a program in a pane of this tmux does set the title.
    t.tmux("new-window", "-d", "-n", "control", "printf '\\033]2;PWNED-TITLE\\007'; sleep 600");
    const until = Date.now() + 10_000;
    while (!t.tmux("display-message", "-p", "-t", "control", "#{pane_title}").includes("PWNED-TITLE")) {
      if (Date.now() > until) throw new Error("the control pane's title was never set");
      await sleep(100);
    }
  });
});
