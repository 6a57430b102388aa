import { spawn, type ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import type { Readable } from "node:stream";
import type { CommandSandbox } from "../sandbox/index.js";
import { TerminalTextCleaner } from "./ansi.js";
import type { CommandOutput } from "./command-output.js";
import { looksLikePrompt } from "./interactive-prompt.js";
import { groupAlive, killGroupNow, terminateGroup } from "./kill-tree.js";
import { commandEnv, shellInvocation } from "./shell.js";

export type Timing = {
  /** A command that printed something and then nothing for this long moves to the background. */
  quietMs: number;
  /** A command that printed nothing at all for this long moves to the background. */
  silentMs: number;
  /** Without a timeout from the model, the longest a call waits. */
  defaultTimeoutMs: number;
  /** A last line that looks like a prompt and stays unchanged this long stops the command. */
  promptQuietMs: number;
  /** After the shell exits, how long to wait for its output pipe to close (a child may hold it). */
  lingerMs: number;
  /** kill() and dispose(): SIGTERM, then SIGKILL after this long. */
  killGraceMs: number;
  /** Abort and prompt stops: the same, but quicker. */
  stopGraceMs: number;
  /** Output reaches the host at most this often, small chunks merged. */
  emitIntervalMs: number;
};

export const defaultTiming: Timing = {
  quietMs: 5_000,
  silentMs: 10_000,
  defaultTimeoutMs: 30_000,
  promptQuietMs: 2_000,
  lingerMs: 250,
  killGraceMs: 2_000,
  stopGraceMs: 250,
  emitIntervalMs: 50,
};

/** How one wait for a command ended. */
export type Outcome =
  /** The shell exited; `lingering` when processes it started still run (they stay in the background). */
  | { type: "exited"; code: number | null; signal: NodeJS.Signals | null; lingering: boolean }
  /** Stopped: its last line looked like a prompt for input. */
  | { type: "prompt"; line: string }
  /** Still running; the call returns and the process stays in the background. */
  | { type: "background"; reason: "quiet" | "silent" | "timeout" }
  /** The caller's signal aborted; the process was stopped. */
  | { type: "aborted" };

export type WaitOptions = {
  signal?: AbortSignal;
  timeoutMs: number;
  /** Whether quiet periods end the wait (off when the model asked for a timeout). */
  followQuiet: boolean;
  onOutput?: (text: string) => void;
};

/** Text held for the host between two emissions; a flood beyond it is skipped, not buffered. */
const MAX_EMIT_CHARS = 64 * 1024;

export class StartError extends Error {}

/** One command's shell process: its output, its exit, and waiting on it. */
export class ManagedProcess {
  readonly startedAt = new Date();
  exited = false;
  exitCode: number | null = null;
  exitSignal: NodeJS.Signals | null = null;
  /** The output pipe has closed: no more output can come. */
  closed = false;
  private lingerExpired = false;
  private lingerTimer: NodeJS.Timeout | undefined;
  /** Seen with nothing left running: never signal the id again (it may be reused). */
  private gone = false;
  private lastActivity: number | undefined;
  private promptChecked = false;
  private readonly started = performance.now();
  private readonly watchers = new Set<() => void>();
  private onOutput: ((text: string) => void) | undefined;
  private emitBuffer = "";
  private emitSkipped = 0;

  private constructor(
    readonly id: number,
    readonly command: string,
    readonly cwd: string,
    readonly pid: number,
    readonly output: CommandOutput,
    private readonly timing: Timing,
    child: ChildProcess,
    /** Set when the command runs in the sandbox: its shell's exit arrives on fd 3, before bubblewrap's own. */
    readonly sandboxed: boolean,
  ) {
    this.listen(child.stdout);
    this.listen(child.stderr);
    if (sandboxed) this.listenStatus(child.stdio[3] as Readable | null | undefined);
    // Without the sandbox the shell is the child; with it, bubblewrap exits only after the shell
    // and everything it left running, or when the group is killed before the shell reported.
    child.on("exit", (code, signal) => this.shellExited(code, signal));
    // Spawn failures are caught in start(); a later 'error' (a failed signal) must not crash the host.
    child.on("error", () => {});
    child.on("close", () => {
      this.closed = true;
      clearTimeout(this.lingerTimer);
      this.output.close();
      this.notify();
    });
  }

  /** Spawns `command` in `shell`, in its own process group, with stdin empty. */
  static async start(options: {
    id: number;
    command: string;
    cwd: string;
    shell: string;
    output: CommandOutput;
    timing: Timing;
    env?: Record<string, string>;
    sandbox?: CommandSandbox;
  }): Promise<ManagedProcess> {
    let { file, args } = shellInvocation(options.shell, options.command);
    let env: NodeJS.ProcessEnv = { ...commandEnv(), ...options.env };
    if (options.sandbox) {
      await options.sandbox.ready();
      // The sandbox's status shell joins stderr to stdout itself: no extra sh in between.
      const wrapped = options.sandbox.wrap(options.shell, ["-c", options.command], { cwd: options.cwd, env, reportStatus: true, dropSecrets: true });
      if (!wrapped.ok) throw new StartError(wrapped.message);
      ({ file, args, env } = wrapped);
    }
    const child = spawn(file, args, {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: options.sandbox ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
    });
    if (child.pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once("error", resolve));
      throw new StartError(`could not start ${file}: ${error.message}`);
    }
    return new ManagedProcess(options.id, options.command, options.cwd, child.pid, options.output, options.timing, child, options.sandbox !== undefined);
  }

  private shellExited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    this.exitSignal = signal;
    this.lingerTimer = setTimeout(() => {
      this.lingerExpired = true;
      this.notify();
    }, this.timing.lingerMs);
    this.notify();
  }

  /** The sandbox's status line: the shell's exit code ($? is 128+n for a shell killed by signal n). */
  private listenStatus(stream: Readable | null | undefined): void {
    if (!stream) return;
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const line = /^(\d+)\n/.exec(text);
      if (line) this.shellExited(Number(line[1]), null);
    });
    stream.on("error", () => {});
  }

  get elapsedMs(): number {
    return performance.now() - this.started;
  }

  /** Whether anything of the command still runs: the shell, or processes it left behind. */
  get running(): boolean {
    if (!this.exited || !this.closed) return true;
    if (this.gone) return false;
    // In the sandbox, all the command started lives in bubblewrap's PID namespace: its status shell
    // stays while anything else runs there, and the kernel empties the namespace when its first
    // process ends, before bubblewrap (the child, ended once closed) can end. Nothing is left to look
    // for. (A look at the group can mean reading all of /proc, since bubblewrap's own child, orphaned
    // and not yet reaped, is still a member: ~1.5 ms after every command.)
    if (!this.sandboxed && groupAlive(this.pid)) return true;
    this.gone = true;
    return false;
  }

  /** Waits until the command exits, stops at a prompt, goes quiet, times out, or is aborted. */
  wait(options: WaitOptions): Promise<Outcome> {
    const { signal, timeoutMs, followQuiet } = options;
    this.onOutput = options.onOutput;
    return new Promise<Outcome>((resolve) => {
      let done = false;
      let stopping = false;
      const begin = performance.now();

      const finish = (outcome: Outcome) => {
        if (done) return;
        done = true;
        clearInterval(timer);
        signal?.removeEventListener("abort", onAbort);
        this.watchers.delete(onChange);
        this.flushEmit();
        this.onOutput = undefined;
        this.output.markRead();
        resolve(outcome);
      };
      const stopWith = (outcome: Outcome) => {
        if (stopping) return;
        stopping = true;
        void this.terminate(this.timing.stopGraceMs).then(() => finish(outcome));
      };
      const onAbort = () => stopWith({ type: "aborted" });
      const onChange = () => {
        if (stopping || !this.exited || !(this.closed || this.lingerExpired)) return;
        stopping = true;
        void this.leftBehind().then((lingering) =>
          finish({ type: "exited", code: this.exitCode, signal: this.exitSignal, lingering }),
        );
      };
      const tick = () => {
        this.flushEmit();
        if (stopping) return;
        const now = performance.now();
        const last = this.lastActivity;
        if (last !== undefined && !this.promptChecked && !this.exited && now - last >= this.timing.promptQuietMs) {
          this.promptChecked = true;
          const { line, partial } = this.output.lastLine();
          if (looksLikePrompt(line, partial)) return stopWith({ type: "prompt", line });
        }
        if (now - begin >= timeoutMs) return finish({ type: "background", reason: "timeout" });
        if (!followQuiet) return;
        if (last === undefined && now - begin >= this.timing.silentMs) return finish({ type: "background", reason: "silent" });
        if (last !== undefined && now - last >= this.timing.quietMs) return finish({ type: "background", reason: "quiet" });
      };

      const timer = setInterval(tick, this.timing.emitIntervalMs);
      this.watchers.add(onChange);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      onChange();
    });
  }

  /** Stops the whole process group (SIGTERM, then SIGKILL after `graceMs`) and waits for its output to end. */
  async terminate(graceMs: number): Promise<void> {
    if (!this.gone) await terminateGroup(this.pid, graceMs);
    this.gone = true;
    await this.whenClosed(this.timing.lingerMs);
  }

  /** For process exit: SIGKILL to the group, synchronously. */
  killNow(): void {
    if (!this.gone && this.running) killGroupNow(this.pid);
  }

  /** After the shell exited: do processes it started still run? Gives stragglers a moment to finish. */
  private async leftBehind(): Promise<boolean> {
    if (!this.closed) return true;
    const deadline = performance.now() + this.timing.lingerMs;
    while (this.running) {
      if (performance.now() >= deadline) return true;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return false;
  }

  private whenClosed(timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.watchers.delete(watcher);
        resolve();
      };
      const watcher = () => {
        if (this.closed) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.watchers.add(watcher);
    });
  }

  private listen(stream: Readable | null): void {
    if (stream === null) return;
    const decoder = new StringDecoder("utf8");
    const cleaner = new TerminalTextCleaner();
    stream.on("data", (chunk: Buffer) => {
      this.lastActivity = performance.now();
      this.promptChecked = false;
      this.take(cleaner.push(decoder.write(chunk)));
    });
    stream.on("end", () => this.take(cleaner.push(decoder.end()) + cleaner.flush()));
  }

  private take(text: string): void {
    if (text === "") return;
    this.output.write(text);
    if (this.onOutput === undefined) return;
    this.emitBuffer += text;
    if (this.emitBuffer.length > MAX_EMIT_CHARS) {
      this.emitSkipped += this.emitBuffer.length - MAX_EMIT_CHARS;
      this.emitBuffer = this.emitBuffer.slice(-MAX_EMIT_CHARS);
    }
  }

  private flushEmit(): void {
    if (this.emitBuffer === "" || this.onOutput === undefined) return;
    const skipped = this.emitSkipped > 0 ? `[... ${this.emitSkipped} characters not shown here ...]\n` : "";
    const text = skipped + this.emitBuffer;
    this.emitBuffer = "";
    this.emitSkipped = 0;
    this.onOutput(text);
  }

  private notify(): void {
    for (const watcher of [...this.watchers]) watcher();
  }
}
