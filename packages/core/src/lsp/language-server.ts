import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { CommandSandbox } from "../sandbox/index.js";
import { commandEnv, groupAlive, terminateGroup } from "../terminal/index.js";
import { JsonRpcConnection } from "./json-rpc.js";
import { reapGroupBelow } from "./reap-group.js";
import type { ServerSpec } from "./server-specs.js";

type LspDiagnostic = { range?: { start?: { line?: number; character?: number } }; severity?: number; message?: unknown; code?: unknown; source?: unknown };

/** After a server publishes diagnostics without a version, this long without another ends the wait. */
const PUSH_QUIET_MS = 150;
/** How long a server gets to shut down on its own before its processes are killed. */
const SHUTDOWN_MS = 1_000;
/** Most documents kept open in one server: past it the longest untouched is closed (a long session reads many files). */
const MAX_OPEN_DOCUMENTS = 200;
/** Kept of a server's stderr, for the notice when it fails. */
const STDERR_KEEP = 2_000;

/**
 * Servers' process groups still running. If Cairn exits without stopping them (an uncaught error,
 * process.exit in a host), they are killed on the way out: a detached group outlives its parent.
 */
const running = new Set<number>();
let exitHookSet = false;
function killOnExit(pid: number): void {
  running.add(pid);
  if (exitHookSet) return;
  exitHookSet = true;
  process.once("exit", () => {
    for (const group of running) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
}

type Document = { uri: string; version: number; text: string; languageId: string };
type Published = { version: number | undefined; diagnostics: LspDiagnostic[] };
type Waiter = { uri: string; version: number; resolve(d: LspDiagnostic[]): void; quiet?: NodeJS.Timeout };

/**
 * One language server process for one project root, talking LSP on stdio, started inside the
 * task's command sandbox when there is one (it may run the project's code: the workspace's own
 * TypeScript, a crate's build scripts). Its documents are the files Cairn read or edited; their text is sent in
 * full on every change. stop() ends it and every process it started, and waits for them.
 */
export class LanguageServer {
  private readonly child: ChildProcess;
  private readonly connection: JsonRpcConnection;
  private readonly documents = new Map<string, Document>();
  private readonly published = new Map<string, Published>();
  private readonly lastVersion = new Map<string, number>();
  private waiters: Waiter[] = [];
  private stderrTail = "";
  private exited: Promise<void>;
  private readonly sandboxed: boolean;
  /** Why it cannot serve (it exited, failed to start); undefined while it can. */
  failure: string | undefined;
  readonly ready: Promise<void>;
  /** Document notifications wait for the server's initialization (the protocol sends none before it), in order. */
  private outbox: Promise<void>;

  constructor(
    readonly spec: ServerSpec,
    readonly root: string,
    options: { sandbox?: CommandSandbox | undefined; env?: NodeJS.ProcessEnv },
  ) {
    const [file, ...args] = spec.command(root);
    this.sandboxed = options.sandbox !== undefined;
    let launch = { file: file!, args, env: options.env ?? commandEnv() };
    if (options.sandbox) {
      // Its own session inside, with a command's environment: it runs the workspace's code. No
      // network whatever the task's: a server needs none, and the code it runs gets none.
      const wrapped = options.sandbox.wrap(launch.file, launch.args, { cwd: root, env: launch.env, newSession: true, dropSecrets: true, network: "off" });
      if (!wrapped.ok) throw new Error(wrapped.message.replace(/^Not run: /, ""));
      launch = { file: wrapped.file, args: wrapped.args, env: wrapped.env };
    }
    // Detached: its own process group, so stop() reaches the processes it starts (tsserver) too.
    this.child = spawn(launch.file, launch.args, { cwd: root, env: launch.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.exited = new Promise((resolve) => this.child.once("close", () => resolve()));
    const pid = this.child.pid;
    if (pid !== undefined) killOnExit(pid);
    this.child.stderr!.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_KEEP);
    });
    this.child.stdin!.on("error", () => undefined);
    this.connection = new JsonRpcConnection(this.child.stdout!, this.child.stdin!, {
      onNotification: (method, params) => this.notified(method, params),
      onRequest: (method, params) => {
        if (method === "workspace/configuration") {
          const items = (params as { items?: unknown[] } | undefined)?.items ?? [];
          return items.map(() => ({}));
        }
        if (method === "workspace/workspaceFolders") return [{ uri: pathToFileURL(root).href, name: "workspace" }];
        return null;
      },
    });
    this.child.once("error", (error) => this.fail(`it could not start (${error.message})`));
    this.child.once("exit", (code, signal) => this.fail(`it exited (${signal ?? `code ${code}`})${this.lastStderr()}`));
    this.ready = this.initialize();
    this.outbox = this.ready.catch(() => undefined);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private async initialize(): Promise<void> {
    const rootUri = pathToFileURL(this.root).href;
    await this.connection.request("initialize", {
      // A server exits when this process is gone; in the sandbox's own PID namespace this id names
      // nothing (it would exit at once), and bubblewrap ends the server with Cairn there instead.
      processId: this.sandboxed ? null : process.pid,
      rootUri,
      rootPath: this.root,
      workspaceFolders: [{ uri: rootUri, name: "workspace" }],
      initializationOptions: this.spec.initializationOptions?.(this.root) ?? {},
      capabilities: {
        textDocument: { synchronization: { didSave: false, dynamicRegistration: false }, publishDiagnostics: { versionSupport: true, relatedInformation: false } },
        workspace: { configuration: true, workspaceFolders: true },
        window: { workDoneProgress: false },
      },
    });
    this.connection.notify("initialized", {});
  }

  /** Sends the file's text (opening it the first time); its diagnostics come later. */
  sync(file: string, text: string, extension: string): Document {
    const uri = pathToFileURL(file).href;
    const known = this.documents.get(uri);
    if (known === undefined) {
      // A reopened document goes on from its last version: a late publication for the old one cannot pass for the new.
      const doc: Document = { uri, version: (this.lastVersion.get(uri) ?? 0) + 1, text, languageId: this.spec.languageId(extension) };
      this.lastVersion.set(uri, doc.version);
      this.documents.set(uri, doc);
      this.send("textDocument/didOpen", { textDocument: { uri, languageId: doc.languageId, version: doc.version, text } });
      this.closeOldest();
      return doc;
    }
    // Map order is the order of use: the document moves to the end.
    this.documents.delete(uri);
    this.documents.set(uri, known);
    if (known.text === text) return known;
    known.version += 1;
    this.lastVersion.set(uri, known.version);
    known.text = text;
    this.send("textDocument/didChange", { textDocument: { uri, version: known.version }, contentChanges: [{ text }] });
    return known;
  }

  private send(method: string, params: unknown): void {
    this.outbox = this.outbox.then(() => this.connection.notify(method, params));
  }

  private closeOldest(): void {
    while (this.documents.size > MAX_OPEN_DOCUMENTS) {
      const oldest = this.documents.values().next().value as Document;
      this.documents.delete(oldest.uri);
      this.published.delete(oldest.uri);
      this.send("textDocument/didClose", { textDocument: { uri: oldest.uri } });
    }
  }

  /** The text last sent for the file, or undefined when it is not open. */
  textOf(file: string): string | undefined {
    return this.documents.get(pathToFileURL(file).href)?.text;
  }

  openFiles(): string[] {
    return [...this.documents.values()].map((d) => fileURLToPath(d.uri));
  }

  /**
   * The diagnostics of the file's text as last synced: asked for, or waited for as they are
   * published. Undefined when the server fails or `signal` ends the wait first.
   */
  async diagnostics(file: string, signal: AbortSignal): Promise<LspDiagnostic[] | undefined> {
    const doc = this.documents.get(pathToFileURL(file).href);
    if (doc === undefined || this.failure !== undefined) return undefined;
    const stopped = new Promise<undefined>((resolve) => {
      if (signal.aborted) resolve(undefined);
      signal.addEventListener("abort", () => resolve(undefined), { once: true });
    });
    const answer = this.spec.diagnostics === "tsserver" ? this.askTsserver(file) : this.waitForPush(doc);
    answer.catch(() => undefined);
    try {
      return await Promise.race([answer, stopped]);
    } catch (error) {
      // An error answer (not a timeout): the server cannot check this file; say why once.
      this.failure ??= `it answered with an error: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300);
      return undefined;
    } finally {
      this.waiters = this.waiters.filter((w) => w.uri !== doc.uri || w.version > doc.version);
    }
  }

  private async askTsserver(file: string): Promise<LspDiagnostic[]> {
    await this.ready;
    // After the text it is asked about has gone out.
    await this.outbox;
    const ask = (command: string) =>
      this.connection.request<{ body?: TsDiagnostic[] } | undefined>("workspace/executeCommand", { command: "typescript.tsserverRequest", arguments: [command, { file }] });
    const [syntactic, semantic] = await Promise.all([ask("syntacticDiagnosticsSync"), ask("semanticDiagnosticsSync")]);
    return [...(syntactic?.body ?? []), ...(semantic?.body ?? [])].map(fromTsserver);
  }

  private waitForPush(doc: Document): Promise<LspDiagnostic[]> {
    const published = this.published.get(doc.uri);
    if (published?.version !== undefined && published.version >= doc.version) return Promise.resolve(published.diagnostics);
    return new Promise((resolve) => this.waiters.push({ uri: doc.uri, version: doc.version, resolve }));
  }

  /** What the server last published for the file (push servers), or undefined. */
  lastPublished(file: string): LspDiagnostic[] | undefined {
    return this.published.get(pathToFileURL(file).href)?.diagnostics;
  }

  private notified(method: string, params: unknown): void {
    if (method !== "textDocument/publishDiagnostics") return;
    const p = params as { uri?: string; version?: number; diagnostics?: LspDiagnostic[] };
    if (typeof p.uri !== "string" || !Array.isArray(p.diagnostics)) return;
    const uri = normalUri(p.uri);
    const version = typeof p.version === "number" ? p.version : undefined;
    this.published.set(uri, { version, diagnostics: p.diagnostics });
    for (const waiter of this.waiters) {
      if (waiter.uri !== uri) continue;
      if (version !== undefined) {
        if (version >= waiter.version) waiter.resolve(p.diagnostics);
        continue;
      }
      // No version: the first publication after the change, then a short quiet for a second one (syntax, then types).
      if (waiter.quiet) clearTimeout(waiter.quiet);
      const diagnostics = p.diagnostics;
      waiter.quiet = setTimeout(() => waiter.resolve(diagnostics), PUSH_QUIET_MS);
    }
  }

  private fail(reason: string): void {
    this.failure ??= reason;
    this.connection.close(new Error(reason));
    for (const waiter of this.waiters) waiter.resolve([]);
    this.waiters = [];
  }

  private lastStderr(): string {
    const line = this.stderrTail.trim().split("\n").pop()?.trim();
    return line ? `: ${line.slice(0, 200)}` : "";
  }

  /**
   * Asks it to shut down, ends what it started while it still runs to reap them (tsserver's
   * processes), lets it exit, then ends whatever is left of its group, and waits until nothing of
   * it runs.
   */
  async stop(): Promise<void> {
    const pid = this.child.pid;
    if (this.failure === undefined && pid !== undefined) {
      const timer = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref());
      await Promise.race([this.connection.request("shutdown", null).catch(() => undefined), timer]);
      await reapGroupBelow(pid, SHUTDOWN_MS);
      this.connection.notify("exit", null);
      await Promise.race([this.exited, new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref())]);
    } else if (pid !== undefined) {
      await reapGroupBelow(pid, SHUTDOWN_MS);
    }
    this.failure ??= "stopped";
    this.connection.close(new Error("stopped"));
    if (pid !== undefined && groupAlive(pid)) await terminateGroup(pid, 500);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        this.child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    }
    // Node reaps its own child; 'close' comes once it has been reaped and its pipes are closed.
    await Promise.race([this.exited, new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref())]);
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    this.child.stdin?.destroy();
    if (pid !== undefined) running.delete(pid);
  }
}

type TsDiagnostic = { start?: { line?: number; offset?: number }; text?: string; code?: number; category?: string; source?: string };

function fromTsserver(d: TsDiagnostic): LspDiagnostic {
  const severity = d.category === "error" ? 1 : d.category === "warning" ? 2 : d.category === "suggestion" ? 4 : 3;
  return {
    range: { start: { line: (d.start?.line ?? 1) - 1, character: (d.start?.offset ?? 1) - 1 } },
    severity,
    message: d.text,
    ...(d.code === undefined ? {} : { code: d.code }),
    source: d.source ?? "typescript",
  };
}

/** Servers may spell a file's URI differently (escapes, a drive letter's case); one spelling per file. */
function normalUri(uri: string): string {
  try {
    return pathToFileURL(fileURLToPath(uri)).href;
  } catch {
    return uri;
  }
}
