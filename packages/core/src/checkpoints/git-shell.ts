import { spawn, type ChildProcessByStdio } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { GitError, gitConfigEnvironment, gitEnvironment, type GitResult, type ShadowLocation } from "./git.js";

/** An idle shell exits after this long; the next call starts another. */
const idleMs = 5_000;

type Pending = { args: readonly string[]; resolve(result: GitResult): void; reject(error: unknown): void };

/**
 * A small shell that runs the checkpoints' git commands, started once and fed one command line at a
 * time (their input, if any, from a file). Starting a process from the agent costs a fork of its
 * whole (large) Node process, several ms of its main thread each time (13 ms at 330 MB); the shell
 * forks git for the cost of a small process. One command at a time: callers are already serialized
 * per shadow repository.
 *
 * Each command's output ends with a marker holding a random nonce (paths cannot contain NUL, and a
 * nonce cannot be guessed by a file name), git's stdin is /dev/null so nothing reads the command
 * channel, and a shell that dies fails the command running in it; the next call starts a new one.
 */
export class GitShell {
  private child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  private readonly nonce = randomBytes(12).toString("hex");
  private pending: Pending | undefined;
  private stdout: Buffer[] = [];
  private stderr: Buffer[] = [];
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly location: ShadowLocation,
    /** Shell functions defined once in each shell (name() { ... }), callable by `call`. */
    private readonly functions: string,
  ) {}

  /** The running shell's process id, if one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Whether a command is running (callers that want several at once start the others as processes). */
  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** `git <args>` with stdin from /dev/null; resolves whatever the exit code (the caller decides). */
  git(args: readonly string[]): Promise<GitResult> {
    return this.send(`git ${args.map(quote).join(" ")} </dev/null`, ["git", ...args]);
  }

  /**
   * `git <args>` reading `input` (paths joined by NUL, a commit message), which the command channel
   * cannot carry: it goes through a file of this shell's own in the repository's folder, written
   * here and removed once git is done.
   */
  async gitWithInput(args: readonly string[], input: string | Buffer): Promise<GitResult> {
    if (this.pending) throw new Error("GitShell runs one command at a time");
    const file = path.join(this.location.gitDir, `cairn-input-${this.nonce}`);
    writeFileSync(file, input);
    try {
      return await this.send(`git ${args.map(quote).join(" ")} <${quote(file)}`, ["git", ...args]);
    } finally {
      rmSync(file, { force: true });
    }
  }

  /** One of the shell functions, with these arguments; resolves whatever the exit code. */
  call(name: string, args: readonly string[]): Promise<GitResult> {
    return this.send(`${name} ${args.map(quote).join(" ")} </dev/null`, [name, ...args.slice(0, 3)]);
  }

  private send(line: string, label: readonly string[]): Promise<GitResult> {
    if (this.pending) return Promise.reject(new Error("GitShell runs one command at a time"));
    const child = this.ensureStarted();
    if (this.idle) clearTimeout(this.idle);
    child.ref();
    (child.stdout as unknown as { ref?(): void }).ref?.();
    return new Promise<GitResult>((resolve, reject) => {
      this.pending = { args: label, resolve, reject };
      this.stdout = [];
      this.stderr = [];
      const end = `\\0cairn-end-${this.nonce} %s\\n`;
      child.stdin.write(`${line}\nprintf '${end}' "$?"\nprintf '\\0cairn-end-${this.nonce}\\n' >&2\n`);
    });
  }

  private ensureStarted(): ChildProcessByStdio<Writable, Readable, Readable> {
    if (this.child) return this.child;
    const child = spawn("sh", [], {
      cwd: this.location.workTree,
      env: { ...gitEnvironment(this.location), ...gitConfigEnvironment() },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    child.stdin.on("error", () => {}); // a shell that died is reported through `close`
    child.stdout.on("data", (chunk: Buffer) => {
      this.stdout.push(chunk);
      this.settle();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderr.push(chunk);
      this.settle();
    });
    child.on("error", (error) => this.fail(child, error));
    // "exit", not "close": a git the shell left running may hold its output open long after.
    child.on("exit", (code, signal) => this.fail(child, new Error(`the checkpoints' git shell exited (${signal ?? code})`)));
    child.stdin.write(`${this.functions}\n`);
    return child;
  }

  /**
   * Resolves the command once both streams have shown their end marker. Only the streams' last bytes
   * are looked at until then: a status of 100,000 files comes in ~45 chunks, and joining them all at
   * each one copied ~65 MB.
   */
  private settle(): void {
    const pending = this.pending;
    if (!pending) return;
    const errMarker = Buffer.from(`\0cairn-end-${this.nonce}\n`);
    if (!tail(this.stderr, errMarker.length).equals(errMarker)) return;
    const outMarker = Buffer.from(`\0cairn-end-${this.nonce} `);
    const end = tail(this.stdout, outMarker.length + 8); // the marker, an exit code of up to 3 digits, a newline
    const at = end.lastIndexOf(outMarker);
    if (at < 0 || end[end.length - 1] !== 0x0a) return;
    const code = Number(end.subarray(at + outMarker.length, end.length - 1).toString("utf8"));
    if (!Number.isInteger(code)) return;
    const out = Buffer.concat(this.stdout);
    const err = Buffer.concat(this.stderr);
    const outEnd = out.length - (end.length - at);
    this.pending = undefined;
    this.stdout = [];
    this.stderr = [];
    this.rest();
    pending.resolve({ code, stdout: out.subarray(0, outEnd), stderr: err.subarray(0, err.length - errMarker.length).toString("utf8") });
  }

  /** Between commands the shell keeps no one waiting: it does not hold the process open, and exits when idle. */
  private rest(): void {
    const child = this.child;
    if (!child) return;
    child.unref();
    (child.stdout as unknown as { unref?(): void }).unref?.();
    (child.stderr as unknown as { unref?(): void }).unref?.();
    (child.stdin as unknown as { unref?(): void }).unref?.();
    this.idle = setTimeout(() => this.close(), idleMs);
    this.idle.unref();
  }

  /** Ends the shell (it exits when its input closes); a later call starts a new one. */
  close(): void {
    if (this.idle) clearTimeout(this.idle);
    const child = this.child;
    if (!child || this.pending) return;
    this.child = undefined;
    child.stdin.end();
  }

  private fail(child: ChildProcessByStdio<Writable, Readable, Readable>, error: unknown): void {
    if (this.child === child) this.child = undefined;
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    pending.reject(new GitError(pending.args, 128, String((error as Error).message ?? error), this.location.gitDir));
  }
}

/** The last `bytes` bytes of what the chunks hold (fewer when they hold fewer), joining only the chunks needed. */
function tail(chunks: readonly Buffer[], bytes: number): Buffer {
  let length = 0;
  let first = chunks.length;
  while (first > 0 && length < bytes) length += chunks[--first]!.length;
  const joined = Buffer.concat(chunks.slice(first));
  return joined.subarray(Math.max(0, joined.length - bytes));
}

/** One shell word: single quotes, with each ' written as '\''. */
function quote(word: string): string {
  // A NUL cannot be in a path or an argument; a shell might drop it from its input, so refuse it.
  if (word.includes("\0")) throw new Error("an argument for the checkpoints' git holds a NUL character");
  return `'${word.replaceAll("'", "'\\''")}'`;
}
