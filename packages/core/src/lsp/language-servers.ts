import { readFileSync } from "node:fs";
import path from "node:path";
import type { AgentEvent } from "../events/index.js";
import type { CommandSandbox } from "../sandbox/index.js";
import { LanguageServer } from "./language-server.js";
import type { LspSettings } from "./lsp-settings.js";
import { describeNewProblems, newProblems, shownCode, toProblems, type Problem } from "./problems.js";
import { rootFor, serverSpecs, specFor, type ServerSpec } from "./server-specs.js";

/**
 * How long an edit's result waits for diagnostics: a server's first answer includes loading the
 * project (seconds for a large TypeScript one); after that an answer takes milliseconds, and a
 * server that takes longer is slow, not the edit's business.
 */
export type LspTiming = { firstAnswerMs: number; answerMs: number };
export const defaultLspTiming: LspTiming = { firstAnswerMs: 30_000, answerMs: 5_000 };

/**
 * Most servers running at once for one task or session: a monorepo's packages each have a root,
 * and a TypeScript server holds hundreds of MB. Past it, the one used longest ago is stopped (and
 * starts again if its files are touched again).
 */
const MAX_SERVERS = 4;

/** Larger files are not sent to a server (a generated bundle, a data file with a code extension). */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

type Check = { text: string; problems: Promise<Problem[] | undefined> };

/** What one edit call may use: check the edited file, or warm a server with a file read. */
export type EditChecks = {
  /** After an edit wrote `after` over `before` (undefined: a new file): the text for the result about the errors it introduced, or undefined. */
  afterEdit(file: string, shown: string, before: string | undefined, after: string): Promise<string | undefined>;
  /** A file was read: its server starts (if it has one) and learns the file, without waiting. */
  read(file: string): void;
};

/**
 * A task's language servers: started lazily, one per server and project root, on the first read
 * or edit of a file it checks; reused for the task; stopped with it. A server that fails, crashes
 * or is slow costs the task nothing but one notice: the edit's result just says nothing of it.
 */
export class LanguageServers {
  private specs: ServerSpec[] | undefined;
  private readonly servers = new Map<string, LanguageServer>();
  /** Servers (name and root) that failed in this task: not started again. */
  private readonly failed = new Set<string>();
  /** Servers that answered once: from then on the shorter wait applies. */
  private readonly answered = new Set<string>();
  private readonly noticed = new Set<string>();
  /** Servers given their first file to check in the background (read()). */
  private readonly warming = new Set<string>();
  private readonly checks = new Map<string, Check>();
  /** Servers being stopped (crashed, silent or least used), for stop() to wait for. */
  private readonly stopping = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly options: {
      workspace: string;
      settings: LspSettings | undefined;
      sandbox?: CommandSandbox | undefined;
      env?: Record<string, string | undefined>;
      timing?: LspTiming;
    },
  ) {}

  get enabled(): boolean {
    return this.options.settings !== false;
  }

  private get timing(): LspTiming {
    const settings = this.options.settings === false ? undefined : this.options.settings;
    const base = this.options.timing ?? defaultLspTiming;
    return { firstAnswerMs: settings?.startWaitMs ?? base.firstAnswerMs, answerMs: settings?.waitMs ?? base.answerMs };
  }

  /** The capability one call gets: its events and notices go out through `emit`, under its id. */
  forCall(call: { toolUseId: string; emit(event: AgentEvent): void; signal: AbortSignal }): EditChecks {
    return {
      afterEdit: async (file, shown, before, after) => {
        const problems = await this.afterEdit(file, before, after, call.signal, (message) => call.emit({ type: "system", subtype: "notice", level: "warning", message }));
        if (problems === undefined || problems.problems.length === 0) return undefined;
        call.emit({
          type: "diagnostics",
          tool_use_id: call.toolUseId,
          path: shown,
          server: problems.server,
          problems: problems.problems.map((p) => {
            const code = shownCode(p);
            return { line: p.line, column: p.column, severity: p.severity, message: p.message, ...(code === undefined ? {} : { code }) };
          }),
        });
        return describeNewProblems(shown, problems.problems);
      },
      read: (file) => this.read(file, (message) => call.emit({ type: "system", subtype: "notice", level: "warning", message })),
    };
  }

  /**
   * Starts the file's server and sends it the file as on disk. The first file a server gets is
   * also checked in the background: that loads the project, so the first edit finds it warm. Later
   * reads are only sent (a task reading fifty files does not make the server check fifty).
   */
  read(file: string, notice: (message: string) => void): void {
    const server = this.serverFor(file, notice);
    if (server === undefined || this.checks.has(file)) return;
    let text: string;
    try {
      const bytes = readFileSync(file);
      if (bytes.length > MAX_FILE_BYTES) return;
      text = bytes.toString("utf8");
    } catch {
      return;
    }
    const key = serverKey(server.spec, server.root);
    if (this.warming.has(key) || this.answered.has(key)) {
      try {
        server.sync(file, text, path.extname(file).toLowerCase());
      } catch {
        // A server that cannot take it is dealt with at the next check.
      }
      return;
    }
    this.warming.add(key);
    this.check(server, file, text, new AbortController().signal, notice);
  }

  /**
   * The problems the edit introduced in `file`: those of `after` that `before` did not have.
   * Undefined when no server checks the file or it did not answer in time.
   */
  async afterEdit(
    file: string,
    before: string | undefined,
    after: string,
    signal: AbortSignal,
    notice: (message: string) => void,
  ): Promise<{ server: string; problems: Problem[] } | undefined> {
    if (Buffer.byteLength(after) > MAX_FILE_BYTES || (before !== undefined && Buffer.byteLength(before) > MAX_FILE_BYTES)) return undefined;
    const server = this.serverFor(file, notice);
    if (server === undefined) return undefined;
    const known = this.checks.get(file);
    const baseline = before === undefined ? Promise.resolve<Problem[] | undefined>([]) : known?.text === before ? known.problems : this.check(server, file, before, signal, notice).problems;
    const base = await baseline;
    if (base === undefined) return undefined;
    const next = await this.check(server, file, after, signal, notice).problems;
    if (next === undefined) return undefined;
    return { server: server.spec.name, problems: newProblems(base, next) };
  }

  /** Whether a server of this task checks files like this one (by extension). */
  handles(file: string): boolean {
    if (this.options.settings === false) return false;
    this.specs ??= serverSpecs(this.options.settings, this.options.workspace, this.options.env ?? process.env, this.options.sandbox !== undefined);
    return specFor(this.specs, file) !== undefined;
  }

  /**
   * The errors the servers see now (for @problems): in the files they have open (read or edited in
   * this task) and in `more`, each as it is on disk. `checked`: how many files a server answered for.
   */
  async problemsIn(more: readonly string[], signal: AbortSignal, notice: (message: string) => void): Promise<{ checked: number; found: Array<{ file: string; server: string; problems: Problem[] }> }> {
    const files = new Set([...[...this.servers.values()].flatMap((s) => s.openFiles()), ...more]);
    const found: Array<{ file: string; server: string; problems: Problem[] }> = [];
    let checked = 0;
    await Promise.all(
      [...files].map(async (file) => {
        const server = this.serverFor(file, notice);
        if (server === undefined) return;
        let text: string;
        try {
          const bytes = readFileSync(file);
          if (bytes.length > MAX_FILE_BYTES) return;
          text = bytes.toString("utf8");
        } catch {
          return;
        }
        const known = this.checks.get(file);
        const problems = await (known?.text === text ? known : this.check(server, file, text, signal, notice)).problems;
        if (problems === undefined) return;
        checked += 1;
        if (problems.length > 0) found.push({ file, server: server.spec.name, problems });
      }),
    );
    return { checked, found: found.sort((a, b) => a.file.localeCompare(b.file)) };
  }

  /** Sends `text` as the file's content and asks for its problems, within the wait's bound. */
  private check(server: LanguageServer, file: string, text: string, signal: AbortSignal, notice: (message: string) => void): Check {
    const key = serverKey(server.spec, server.root);
    const wait = this.answered.has(key) ? this.timing.answerMs : this.timing.firstAnswerMs;
    const problems = (async (): Promise<Problem[] | undefined> => {
      try {
        server.sync(file, text, path.extname(file).toLowerCase());
      } catch {
        return undefined;
      }
      const bounded = AbortSignal.any([signal, AbortSignal.timeout(wait)]);
      const diagnostics = await server.diagnostics(file, bounded);
      if (server.failure !== undefined) {
        this.drop(server, `${server.spec.name} language server stopped (${server.failure}); edits are no longer checked by it in this task.`, notice);
        return undefined;
      }
      if (diagnostics === undefined) {
        if (signal.aborted) return undefined;
        // A server that never answered is hung or far too slow: stopped, so no later edit waits for it.
        if (!this.answered.has(key)) this.drop(server, `${server.spec.name} language server did not answer within ${wait / 1000} s and was stopped; edits are not checked by it in this task.`, notice);
        else this.noticeOnce(server.spec.name, `${server.spec.name} language server did not answer within ${wait / 1000} s; an edit's result may not say whether it introduced errors.`, notice);
        return undefined;
      }
      this.answered.add(key);
      return toProblems(diagnostics, server.spec.name, this.options.settings !== false && this.options.settings?.warnings === true);
    })();
    const check = { text, problems };
    this.checks.set(file, check);
    return check;
  }

  private serverFor(file: string, notice: (message: string) => void): LanguageServer | undefined {
    if (this.stopped || this.options.settings === false) return undefined;
    const workspace = this.options.workspace;
    if (file !== workspace && !file.startsWith(workspace + path.sep)) return undefined;
    this.specs ??= serverSpecs(this.options.settings, workspace, this.options.env ?? process.env, this.options.sandbox !== undefined);
    const spec = specFor(this.specs, file);
    if (spec === undefined) return undefined;
    const root = rootFor(spec, file, workspace);
    const key = serverKey(spec, root);
    if (this.failed.has(key)) return undefined;
    const running = this.servers.get(key);
    if (running !== undefined) {
      if (running.failure === undefined) {
        // Map order is the order of use: the server moves to the end.
        this.servers.delete(key);
        this.servers.set(key, running);
        return running;
      }
      this.drop(running, `${spec.name} language server stopped (${running.failure}); edits are no longer checked by it in this task.`, notice);
      return undefined;
    }
    try {
      const server = new LanguageServer(spec, root, { sandbox: this.options.sandbox, ...(this.options.env ? { env: this.options.env as NodeJS.ProcessEnv } : {}) });
      this.servers.set(key, server);
      this.stopLeastUsed();
      return server;
    } catch (error) {
      this.failed.add(key);
      this.noticeOnce(spec.name, `${spec.name} language server could not start (${error instanceof Error ? error.message : String(error)}); edits are not checked by it in this task.`, notice);
      return undefined;
    }
  }

  /** Stops a server without waiting here; stop() waits for it. */
  private stopLater(server: LanguageServer): void {
    const stopping = server.stop().finally(() => this.stopping.delete(stopping));
    this.stopping.add(stopping);
  }

  private stopLeastUsed(): void {
    while (this.servers.size > MAX_SERVERS) {
      const [key, oldest] = this.servers.entries().next().value as [string, LanguageServer];
      this.servers.delete(key);
      this.answered.delete(key);
      this.warming.delete(key);
      for (const file of oldest.openFiles()) this.checks.delete(file);
      this.stopLater(oldest);
    }
  }

  private drop(server: LanguageServer, message: string, notice: (message: string) => void): void {
    const key = serverKey(server.spec, server.root);
    this.failed.add(key);
    if (this.servers.get(key) === server) this.servers.delete(key);
    for (const file of server.openFiles()) this.checks.delete(file);
    this.stopLater(server);
    this.noticeOnce(server.spec.name, message, notice);
  }

  private noticeOnce(name: string, message: string, notice: (message: string) => void): void {
    if (this.noticed.has(name)) return;
    this.noticed.add(name);
    notice(message);
  }

  /** Stops every server and waits until none of their processes runs. */
  async stop(): Promise<void> {
    this.stopped = true;
    const servers = [...this.servers.values()];
    this.servers.clear();
    this.checks.clear();
    await Promise.all([...servers.map((s) => s.stop()), ...this.stopping]);
  }

  /** The servers' processes now running (their process ids), for measuring and tests. */
  pids(): number[] {
    return [...this.servers.values()].flatMap((s) => (s.pid === undefined ? [] : [s.pid]));
  }
}

function serverKey(spec: ServerSpec, root: string): string {
  return `${spec.name}\u0000${root}`;
}
