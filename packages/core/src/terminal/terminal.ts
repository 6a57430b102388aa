import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { CommandSandbox } from "../sandbox/index.js";
import { TerminalTextCleaner } from "./ansi.js";
import type { CommandExecutor } from "./command-executor.js";
import { CommandOutput, defaultOutputLimits, type OutputLimits } from "./command-output.js";
import { looksLikePrompt } from "./interactive-prompt.js";
import { defaultTiming, ManagedProcess, StartError, type Outcome, type Timing } from "./process-runner.js";
import { pickShell } from "./shell.js";

export type TerminalOptions = {
  /** The task's scratch folder: each command's full log goes here as `command-<id>.log` when it is long. */
  scratchDir: string;
  timing?: Partial<Timing>;
  limits?: Partial<OutputLimits>;
  /** Variables added to every command's environment (the task's id, so leftovers can be found). */
  env?: Record<string, string>;
  /** The OS sandbox every command runs in (none: commands run as the person, guarded by approvals alone). */
  sandbox?: CommandSandbox;
  /** The host's own executor (a remote workspace): commands run there instead of here, and the sandbox is not used. */
  executor?: CommandExecutor;
};

export type RunRequest = {
  command: string;
  cwd: string;
  signal?: AbortSignal;
  /**
   * Wait this long at most, however quiet the command is (for a build that is silent for minutes).
   * Without it the call also returns once the command goes quiet, and after `timing.defaultTimeoutMs`.
   */
  timeoutMs?: number;
  /** Output as it comes, cleaned of escape codes, in merged chunks. */
  onOutput?: (text: string) => void;
};

export type RunResult =
  | { started: false; message: string }
  | {
      started: true;
      /** The process's number in this terminal (background processes are named by it). */
      id: number;
      pid: number;
      outcome: Outcome;
      /** The output so far, bounded: head and tail with a note of any cut and the log path. */
      output: string;
      /** Set when the output was too long to keep whole: the file with all of it. */
      logPath: string | undefined;
      /** For a command that exited: its last line, when that looks like a prompt it got no answer to. */
      trailingPrompt: string | undefined;
      /** Set when the output shows the sandbox blocked a write: what happened and who can allow it. */
      sandboxNote: string | undefined;
      elapsedMs: number;
    };

export type ProcessInfo = {
  id: number;
  command: string;
  pid: number;
  cwd: string;
  status: "running" | "exited";
  /** The shell's exit code, once it has exited (null when killed by a signal). */
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  startedAt: Date;
  logPath: string | undefined;
};

/**
 * One task's commands. A command that is still running when its call returns stays here, in the
 * background, until it ends, is killed, or the terminal is disposed (at the end of the task).
 */
export class Terminal {
  readonly scratchDir: string;
  private readonly timing: Timing;
  private readonly limits: OutputLimits;
  private readonly env: Record<string, string>;
  readonly sandbox: CommandSandbox | undefined;
  private readonly executor: CommandExecutor | undefined;
  private readonly processes = new Map<number, ManagedProcess>();
  /** Background processes whose exit the model has been told about. */
  private readonly reported = new Set<number>();
  private nextId: Promise<number> | undefined;
  private disposed = false;

  constructor(options: TerminalOptions) {
    this.scratchDir = options.scratchDir;
    this.timing = { ...defaultTiming, ...options.timing };
    this.limits = { ...defaultOutputLimits, ...options.limits };
    this.env = options.env ?? {};
    this.sandbox = options.executor ? undefined : options.sandbox;
    this.executor = options.executor;
    liveTerminals.add(this);
    ensureExitHook();
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  async run(request: RunRequest): Promise<RunResult> {
    if (this.disposed) return { started: false, message: "The task's terminal has been closed; no more commands can run in this task." };
    if (this.executor) return this.runWith(this.executor, request);
    const shell = pickShell();
    if (shell === undefined) {
      return { started: false, message: "No shell to run commands with: neither $SHELL (if sh-like), /bin/bash nor /bin/sh can be executed." };
    }
    const cwdProblem = await folderProblem(request.cwd);
    if (cwdProblem !== undefined) return { started: false, message: cwdProblem };

    const stopped = await this.killFromCommand(request.command);
    if (stopped) return stopped;

    const id = await this.allocateId();
    const output = new CommandOutput(path.join(this.scratchDir, `command-${id}.log`), this.limits);
    let managed: ManagedProcess;
    try {
      managed = await ManagedProcess.start({
        id,
        command: request.command,
        cwd: request.cwd,
        shell,
        output,
        timing: this.timing,
        env: this.env,
        ...(this.sandbox ? { sandbox: this.sandbox } : {}),
      });
    } catch (error) {
      if (error instanceof StartError) return { started: false, message: error.message };
      throw error;
    }
    this.processes.set(id, managed);

    const followQuiet = request.timeoutMs === undefined;
    const outcome = await managed.wait({
      timeoutMs: request.timeoutMs ?? this.timing.defaultTimeoutMs,
      followQuiet,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onOutput ? { onOutput: request.onOutput } : {}),
    });
    const stays = outcome.type === "background" || (outcome.type === "exited" && outcome.lingering);
    if (!stays) this.processes.delete(id);
    const last = managed.output.lastLine();
    const trailingPrompt = outcome.type === "exited" && looksLikePrompt(last.line, last.partial) ? last.line : undefined;
    const rendered = output.render();
    return {
      started: true,
      id,
      pid: managed.pid,
      outcome,
      output: rendered,
      logPath: output.logPath,
      trailingPrompt,
      sandboxNote: this.sandbox?.explainBlock(rendered),
      elapsedMs: managed.elapsedMs,
    };
  }

  /** A command run by the host's executor: its output bounded and logged like a local command's. */
  private async runWith(executor: CommandExecutor, request: RunRequest): Promise<RunResult> {
    const id = await this.allocateId();
    const output = new CommandOutput(path.join(this.scratchDir, `command-${id}.log`), this.limits);
    const cleaner = new TerminalTextCleaner();
    const take = (text: string) => {
      if (text === "") return;
      output.write(text);
      request.onOutput?.(text);
    };
    const started = Date.now();
    let exit;
    try {
      exit = await executor.run({
        command: request.command,
        cwd: request.cwd,
        signal: request.signal ?? new AbortController().signal,
        timeoutMs: request.timeoutMs ?? this.timing.defaultTimeoutMs,
        env: { ...this.env },
        onOutput: (text) => take(cleaner.push(text)),
      });
    } catch (error) {
      if (request.signal?.aborted) exit = undefined;
      else return { started: false, message: `The host could not run the command: ${(error as Error).message.split("\n")[0]}` };
    } finally {
      take(cleaner.flush());
      output.close();
    }
    const outcome: Outcome = request.signal?.aborted || exit === undefined ? { type: "aborted" } : { type: "exited", code: exit.exitCode, signal: exit.signal ?? null, lingering: false };
    const last = output.lastLine();
    const rendered = output.render();
    return {
      started: true,
      id,
      pid: 0,
      outcome,
      output: rendered,
      logPath: output.logPath,
      trailingPrompt: outcome.type === "exited" && looksLikePrompt(last.line, last.partial) ? last.line : undefined,
      sandboxNote: undefined,
      elapsedMs: Date.now() - started,
    };
  }

  /**
   * In the sandbox each command has a PID namespace of its own, so \`kill -TERM -- -<pid>\` (what a
   * result tells the model to run for a background process) cannot reach the group from a later
   * command. When the command is exactly that, for a group of this terminal, the terminal ends it.
   */
  private async killFromCommand(command: string): Promise<RunResult | undefined> {
    if (!this.sandbox) return undefined;
    const match = /^\s*kill(?:\s+-(?:TERM|KILL|INT|HUP|9|15|s\s+(?:TERM|KILL)))?(?:\s+--)?\s+-(\d+)\s*;?\s*$/.exec(command);
    if (!match) return undefined;
    const pgid = Number(match[1]);
    const target = [...this.processes.values()].find((p) => p.pid === pgid);
    if (target === undefined) return undefined;
    const started = performance.now();
    await target.terminate(this.timing.killGraceMs);
    return {
      started: true,
      id: target.id,
      pid: pgid,
      outcome: { type: "exited", code: 0, signal: null, lingering: false },
      output: `Stopped process #${target.id} (process group ${pgid}) and everything it started.`,
      logPath: undefined,
      trailingPrompt: undefined,
      sandboxNote: undefined,
      elapsedMs: performance.now() - started,
    };
  }

  /** The processes left running in the background by earlier calls (and those of them that have since ended). */
  list(): ProcessInfo[] {
    return [...this.processes.values()].map((p) => ({
      id: p.id,
      command: p.command,
      pid: p.pid,
      cwd: p.cwd,
      status: p.running ? "running" : "exited",
      exitCode: p.exitCode,
      exitSignal: p.exitSignal,
      startedAt: p.startedAt,
      logPath: p.output.logPath,
    }));
  }

  /** A background process's output since the last read (bounded, with a note of any cut); undefined for an unknown id. */
  newOutput(id: number): string | undefined {
    return this.processes.get(id)?.output.takeUnread();
  }

  /** Stops a background process and everything it started. False for an unknown id. */
  async kill(id: number): Promise<boolean> {
    const managed = this.processes.get(id);
    if (managed === undefined) return false;
    await managed.terminate(this.timing.killGraceMs);
    return true;
  }

  /**
   * What the model should hear about background processes before its next turn: each one still
   * running or newly ended, with its new output. "" when there is nothing to tell.
   */
  updates(): string {
    const sections: string[] = [];
    for (const info of this.list()) {
      if (this.reported.has(info.id)) continue;
      const fresh = this.newOutput(info.id) ?? "";
      const state =
        info.status === "running"
          ? `still running (pid ${info.pid})`
          : info.exitCode !== null
            ? `exited with code ${info.exitCode}`
            : `ended by signal ${info.exitSignal ?? "unknown"}`;
      if (info.status === "exited") this.reported.add(info.id);
      const body = fresh === "" ? "(no new output)" : `New output:\n${fresh}`;
      sections.push(`Process #${info.id} \`${firstLine(info.command)}\`: ${state}.\n${body}`);
    }
    return sections.join("\n\n");
  }

  /** Kills every process this terminal started (SIGTERM to each group, SIGKILL after a grace period) and waits for them. */
  async dispose(): Promise<void> {
    this.disposed = true;
    liveTerminals.delete(this);
    const processes = [...this.processes.values()];
    await Promise.all(processes.map((p) => p.terminate(this.timing.killGraceMs)));
    for (const p of processes) p.output.close();
  }

  /** Numbers continue after any `command-<n>.log` already in the scratch folder (a resumed task). */
  private allocateId(): Promise<number> {
    const previous = this.nextId ?? highestLogNumber(this.scratchDir);
    const id = previous.then((n) => n + 1);
    this.nextId = id;
    return id;
  }

  /** Synchronous last resort when the host process exits without disposing. */
  killAllNow(): void {
    for (const p of this.processes.values()) p.killNow();
  }
}

async function highestLogNumber(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let highest = 0;
  for (const name of names) {
    const match = /^command-(\d+)\.log$/.exec(name);
    if (match?.[1] !== undefined) highest = Math.max(highest, Number(match[1]));
  }
  return highest;
}

async function folderProblem(cwd: string): Promise<string | undefined> {
  try {
    if ((await stat(cwd)).isDirectory()) return undefined;
    return `Cannot run the command: the working folder ${cwd} is not a folder.`;
  } catch {
    return `Cannot run the command: the working folder ${cwd} does not exist.`;
  }
}

function firstLine(command: string): string {
  const line = command.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

const liveTerminals = new Set<Terminal>();
let exitHooked = false;

/** Commands run in their own process groups, so they outlive a host that exits without dispose(); stop them. */
function ensureExitHook(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once("exit", () => {
    for (const terminal of liveTerminals) terminal.killAllNow();
  });
}

const byScratchDir = new Map<string, Terminal>();

/**
 * The terminal of the task a tool call belongs to. Until ToolContext carries one, tasks are told
 * apart by their scratch folder; a disposed terminal is replaced by a fresh one.
 */
export function terminalFor(ctx: { scratchDir: string }): Terminal {
  const existing = byScratchDir.get(ctx.scratchDir);
  if (existing !== undefined && !existing.isDisposed) return existing;
  const terminal = new Terminal({ scratchDir: ctx.scratchDir });
  byScratchDir.set(ctx.scratchDir, terminal);
  return terminal;
}

/** Makes `terminal` the one `terminalFor` returns for its scratch folder (a host's own, or a test's with short timings). */
export function useTerminal(terminal: Terminal): void {
  byScratchDir.set(terminal.scratchDir, terminal);
}
