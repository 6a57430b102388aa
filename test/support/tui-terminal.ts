import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { cairnBin } from "./cairn-cli.js";
import { endTmuxServer } from "./tmux-end.js";

/** Where the tests expect tmux; they fail with how to install it when it is not there. */
export const TMUX = "/usr/bin/tmux";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let count = 0;

/**
 * The interactive `cairn` in a real terminal: one tmux server of its own (its own socket), one
 * 100x40 window, cairn in it. The test types with send-keys and reads the screen with capture-pane.
 */
export class TuiTerminal {
  private readonly socket = `cairn-e2e-${process.pid}-${count++}`;
  private launches = 0;

  /** `scripts`: a folder for the launch scripts (the test's CAIRN_HOME will do); `cwd`: where cairn runs; `columns`: the window's width (40 rows). */
  constructor(
    private readonly env: Record<string, string>,
    private readonly scripts: string,
    private readonly cwd: string,
    private readonly columns = 100,
  ) {}

  /** A tmux command on this terminal's own server. */
  tmux(...args: string[]): string {
    return execFileSync(TMUX, ["-L", this.socket, ...args], { env: this.env, encoding: "utf8" });
  }

  /** Starts `cairn <args>`; when it exits the window stays, showing its exit code. */
  launch(args: string[]): void {
    const script = path.join(this.scripts, `launch-${this.launches++}.sh`);
    const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    writeFileSync(script, `cd '${this.cwd}'\n'${process.execPath}' '${cairnBin}' ${quoted}\necho "[cairn exited $?]"\nsleep 600\n`);
    if (this.launches === 1) {
      this.tmux("new-session", "-d", "-s", "main", "-x", String(this.columns), "-y", "40", `sh '${script}'`);
      this.tmux("set-option", "-s", "escape-time", "0");
    } else {
      this.tmux("respawn-pane", "-k", "-t", "main", `sh '${script}'`);
    }
  }

  /** The window and its scrollback; `colours` keeps the attributes as escape sequences. */
  screen(colours = false): string {
    return this.tmux("capture-pane", "-p", ...(colours ? ["-e"] : []), "-t", "main", "-S", "-300");
  }

  /** Named keys (Enter, Escape, BTab, Down, C-c), one at a time as a person presses them. */
  async press(...keys: string[]): Promise<void> {
    for (const key of keys) {
      this.tmux("send-keys", "-t", "main", key);
      await sleep(60);
    }
  }

  /** Text and keys in one send-keys, so they reach cairn in one burst, as from a paste tool or a fast typist. */
  async burst(...keys: string[]): Promise<void> {
    this.tmux("send-keys", "-t", "main", ...keys);
    await sleep(60);
  }

  /** Pastes `text` as a terminal does (bracketed, when the program asked for it). */
  async paste(text: string): Promise<void> {
    this.tmux("set-buffer", "-b", "e2e", text);
    this.tmux("paste-buffer", "-p", "-b", "e2e", "-t", "main");
    await sleep(60);
  }

  async type(text: string): Promise<void> {
    this.tmux("send-keys", "-t", "main", "-l", text);
    await sleep(60);
  }

  async waitFor(expected: string | RegExp, timeoutMs = 20_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (typeof expected === "string" ? screen.includes(expected) : expected.test(screen)) return screen;
      if (Date.now() > until) throw new Error(`Timed out waiting for ${String(expected)} on the screen:\n${screen}`);
      await sleep(100);
    }
  }

  /** Kills what the window runs (cairn, under the launch script) with SIGKILL, as a crash or a closed laptop would end it. */
  killCairn(): void {
    const shell = this.tmux("list-panes", "-t", "main", "-F", "#{pane_pid}").trim();
    const children = execFileSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" }).split("\n").filter((line) => line.trim() !== "");
    for (const pid of children) process.kill(Number(pid), "SIGKILL");
  }

  /** Ends the tmux server once every process of the session has gone. */
  close(): Promise<void> {
    return endTmuxServer((...args) => this.tmux(...args));
  }
}
