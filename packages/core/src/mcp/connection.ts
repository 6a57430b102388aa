import { lstatSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import type { CommandSandbox } from "../sandbox/index.js";
import { existingFolders } from "../sandbox/hidden-paths.js";
import type { ServerConfig } from "./config.js";
import { isMcpError, loadedMcpSdk, loadMcpSdk, type McpSdk } from "./sdk.js";
import type { McpToolInfo } from "./tool-cache.js";
import { refusedWrite, refusedWriteHint } from "./write-refused.js";

/** A server's life as the hub reports it; `failed` with `retryAt` is restarting, without it has given up. */
export type ServerState =
  | { status: "idle" }
  | { status: "connecting" }
  | { status: "connected" }
  | { status: "failed"; reason: string; retryAt?: number }
  | { status: "disabled" }
  | { status: "needs-approval" };

/** A failure meant for the model (and the person): one line that says what to do. */
export class McpHubError extends Error {
  override name = "McpHubError";
}

/** Waits before automatic restart attempts 1..n after a crash or failed start; then the server is given up. */
export const DEFAULT_RESTART_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000, 8000];
/** A connection that lived this long before dying resets the count of consecutive failures. */
const STABLE_MS = 30_000;
/** After a call timed out, the server must answer a ping within this (or its own timeout, if shorter). */
const PING_MS = 5000;
const STDERR_KEEP = 2000;

const clientVersion = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

export type ConnectionOptions = {
  /** The environment ${VAR}s came from; a stdio server inherits its safe subset (PATH, HOME, ...). */
  env: Record<string, string | undefined>;
  /** The OS sandbox a stdio server starts in, unless its config opts out. */
  sandbox?: CommandSandbox;
  /** The server's own writable folder in the sandbox (CAIRN_HOME/mcp-state/<name>), made on first start. */
  stateFolder?: string;
  /** CAIRN_HOME, hidden from servers: a write refused there is pointed at the state folder. */
  cairnHome?: string;
  restartDelaysMs: readonly number[];
  onState(state: ServerState): void;
  onTools(tools: McpToolInfo[], summary: string | undefined): void;
};

/**
 * One server: started on first use, restarted with backoff when it dies, and never left wedged
 * (a call that times out is followed by a ping; no answer means the process is replaced).
 */
export class McpConnection {
  state: ServerState = { status: "idle" };
  tools: McpToolInfo[] | undefined;
  instructions: string | undefined;
  serverTitle: string | undefined;
  private stdio: StdioClientTransport | undefined;
  private client: Client | undefined;
  private pending: Promise<Client> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private waitForRetry: Promise<void> | undefined;
  private failures = 0;
  private connectedAt = 0;
  private stderrTail = "";
  /** The one-line hint for a write the sandbox refused, seen in the server's stderr since it started. */
  private refusedLine: string | undefined;
  private closed = false;

  constructor(
    readonly config: ServerConfig,
    private readonly options: ConnectionOptions,
  ) {}

  /** The process id of a running stdio server. */
  get pid(): number | undefined {
    return this.client ? (this.stdio?.pid ?? undefined) : undefined;
  }

  /** The live client, starting the server (or waiting for its scheduled restart) when needed. */
  async connected(): Promise<Client> {
    if (this.closed) throw new McpHubError(`MCP server ${this.config.name} has been shut down with its task.`);
    if (this.client) return this.client;
    if (this.pending) return this.pending;
    if (this.state.status === "failed") {
      if (this.state.retryAt === undefined) throw new McpHubError(this.gaveUpMessage(this.state.reason));
      if (!this.waitForRetry) return this.connect();
      // The retry timer is unref'd so an idle hub never keeps the process alive; a caller waiting
      // on it must, or Node would exit mid-call with nothing left to run.
      this.timer?.ref();
      await this.waitForRetry;
      return this.connected();
    }
    return this.connect();
  }

  /** Runs one request with the server's timeout, turning transport trouble into McpHubErrors. */
  async request<T>(what: string, run: (client: Client, options: RequestOptions) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const client = await untilAborted(this.connected(), signal);
    const timeoutSeconds = this.config.timeoutMs / 1000;
    try {
      return await run(client, { timeout: this.config.timeoutMs, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw error;
      if (isMcpError(error, "RequestTimeout")) {
        const alive = await this.answersPing(client);
        const after = alive
          ? "The call was cancelled; the server is still running."
          : "The server stopped answering, so it is being restarted.";
        throw new McpHubError(
          `${what} on MCP server ${this.config.name} did not finish within ${timeoutSeconds} s (its timeout). ${after} Try a smaller request, or ask the user to raise "timeout" for ${this.config.name} in ${this.config.file}.`,
        );
      }
      if (isConnectionError(error)) {
        const reason = `${errorText(error)}${this.lastStderr()}`;
        this.lost(client, reason);
        throw new McpHubError(
          `MCP server ${this.config.name} went away during ${what} (${reason}); it may or may not have taken effect. The server is being restarted: check the effect, then try again.`,
        );
      }
      throw error;
    }
  }

  /** Stops the server for good (the hub is closing). */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelRetry();
    const client = this.client ?? (await this.pending?.catch(() => undefined));
    this.client = undefined;
    if (client) await client.close().catch(() => undefined);
  }

  private connect(): Promise<Client> {
    this.cancelRetry();
    this.setState({ status: "connecting" });
    const attempt = this.open().then(
      (client) => {
        this.pending = undefined;
        return client;
      },
      (error: unknown) => {
        this.pending = undefined;
        if (error instanceof McpHubError) throw error;
        const reason = this.refusedWriteHint(this.stderrTail) ?? `${errorText(error)}${this.lastStderr()}`;
        this.failed(reason);
        throw new McpHubError(this.failureMessage(reason));
      },
    );
    this.pending = attempt;
    return attempt;
  }

  private async open(): Promise<Client> {
    const sdk = await loadMcpSdk();
    let client = this.newClient(sdk);
    try {
      await client.connect(this.newTransport(sdk, this.config.transport), { timeout: this.config.timeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      if (this.config.transport !== "http" || !this.config.fallbackToSse || !refusedByHttpStatus(error)) throw error;
      // A bare `url` that answers streamable HTTP with 4xx may be an older server that speaks only SSE.
      client = this.newClient(sdk);
      await client.connect(this.newTransport(sdk, "sse"), { timeout: this.config.timeoutMs }).catch(async () => {
        await client.close().catch(() => undefined);
        throw error;
      });
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new McpHubError(`MCP server ${this.config.name} has been shut down with its task.`);
    }
    const tools = await listAllTools(client, this.config.timeoutMs).catch(async (error: unknown) => {
      await client.close().catch(() => undefined);
      throw error;
    });
    this.client = client;
    this.connectedAt = Date.now();
    this.instructions = client.getInstructions();
    const info = client.getServerVersion();
    this.serverTitle = info?.title ?? info?.name;
    this.setTools(tools);
    this.setState({ status: "connected" });
    return client;
  }

  private newClient(sdk: McpSdk): Client {
    const client = new sdk.Client(
      { name: "cairn", version: clientVersion },
      {
        capabilities: {},
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (!error && tools && this.client === client) this.setTools(tools);
            },
          },
        },
      },
    );
    client.onclose = () => {
      if (this.client === client) this.crashed(client);
    };
    return client;
  }

  private newTransport(sdk: McpSdk, kind: "stdio" | "sse" | "http"): Transport {
    const config = this.config;
    if (config.transport === "stdio") {
      const inherited = Object.fromEntries(
        sdk.DEFAULT_INHERITED_ENV_VARS.flatMap((key) => {
          const value = this.options.env[key];
          return value === undefined ? [] : [[key, value]];
        }),
      );
      let launch = { command: config.command, args: config.args, env: { ...inherited, ...config.env } as Record<string, string> };
      const sandbox = config.sandbox ? this.options.sandbox : undefined;
      if (sandbox) {
        const state = this.makeStateFolder();
        // The server's entry has the last word on its environment; the state folder only fills gaps.
        launch.env = { ...inherited, ...(state === undefined ? {} : stateEnv(state, config)), ...config.env };
        // A session of its own inside: the server shares the person's terminal otherwise.
        const wrapped = sandbox.wrap(config.command, config.args, {
          cwd: config.cwd,
          env: launch.env,
          newSession: true,
          writable: existingFolders(config.writablePaths ?? []),
          ...(state === undefined ? {} : { stateFolder: state }),
        });
        if (!wrapped.ok) throw new Error(wrapped.message.replace(/^Not run: /, ""));
        launch = { command: wrapped.file, args: wrapped.args, env: wrapped.env as Record<string, string> };
      }
      const transport = new sdk.StdioClientTransport({ ...launch, cwd: config.cwd, stderr: "pipe" });
      this.stderrTail = "";
      this.refusedLine = undefined;
      transport.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_KEEP);
        if (sandbox && this.refusedLine === undefined) {
          // Whole lines of the tail, not the chunk: a line may arrive in two.
          const refused = refusedWrite(this.stderrTail.slice(0, this.stderrTail.lastIndexOf("\n") + 1), ...this.hiddenFolders());
          if (refused) this.refusedLine = refusedWriteHint(config, refused, { cairnHome: this.options.cairnHome, stateFolder: this.options.stateFolder });
        }
      });
      this.stdio = transport;
      return transport;
    }
    const requestInit = { headers: config.headers };
    const url = new URL(config.url);
    return kind === "sse" ? new sdk.SSEClientTransport(url, { requestInit }) : new sdk.StreamableHTTPClientTransport(url, { requestInit });
  }

  private setTools(tools: SdkTool[]): void {
    this.tools = tools.map((t) => ({ name: t.name, description: t.description ?? t.title ?? "", inputSchema: t.inputSchema as Record<string, unknown> }));
    this.options.onTools(this.tools, this.serverTitle);
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.options.onState(state);
  }

  /** The process or connection died on its own. */
  private crashed(client: Client): void {
    this.client = undefined;
    if (Date.now() - this.connectedAt >= STABLE_MS) this.failures = 0;
    const what = this.config.transport === "stdio" ? "the server process exited" : "the connection closed";
    void client.close().catch(() => undefined);
    this.failed(this.refusedWriteHint(this.stderrTail) ?? `${what}${this.lastStderr()}`);
  }

  /** A request showed the connection is dead (or wedged): drop it and restart. */
  private lost(client: Client, reason: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    const pid = this.config.transport === "stdio" ? this.stdio?.pid : undefined;
    if (pid !== undefined && pid !== null) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    void client.close().catch(() => undefined);
    this.failed(reason);
  }

  private async answersPing(client: Client): Promise<boolean> {
    try {
      await client.ping({ timeout: Math.min(PING_MS, this.config.timeoutMs) });
      return true;
    } catch {
      this.lost(client, "it stopped answering after a call timed out");
      return false;
    }
  }

  /** Counts a failure and schedules the next attempt, or gives up after the last delay. */
  private failed(reason: string): void {
    this.failures += 1;
    const delay = this.options.restartDelaysMs[this.failures - 1];
    if (delay === undefined || this.closed) {
      this.setState({ status: "failed", reason: this.failures > 1 ? `${reason} (gave up after ${this.failures} attempts)` : reason });
      return;
    }
    this.setState({ status: "failed", reason, retryAt: Date.now() + delay });
    this.waitForRetry = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closed) this.connect().catch(() => undefined);
      this.releaseWaiters();
    }, delay);
    this.timer.unref();
  }

  private cancelRetry(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const wake = this.wake;
    this.wake = undefined;
    this.waitForRetry = undefined;
    wake?.();
  }

  /**
   * The hint for a write the sandbox refused this server: seen in `text` (a tool's error, an
   * answer) or in its stderr since it started. Undefined outside the sandbox or with none refused.
   */
  refusedWriteHint(text = ""): string | undefined {
    if (this.config.transport !== "stdio" || !this.config.sandbox || this.options.sandbox === undefined) return undefined;
    const refused = refusedWrite(text, ...this.hiddenFolders());
    return refused ? refusedWriteHint(this.config, refused, { cairnHome: this.options.cairnHome, stateFolder: this.options.stateFolder }) : this.refusedLine;
  }

  /** CAIRN_HOME, hidden but for the server's own state folder: where a missing folder means the sandbox. */
  private hiddenFolders(): [string[], string[]] {
    const { cairnHome, stateFolder } = this.options;
    return [cairnHome === undefined ? [] : [cairnHome], stateFolder === undefined ? [] : [stateFolder]];
  }

  /** The state folder, made now (an existing real path), or undefined when it cannot be. */
  private makeStateFolder(): string | undefined {
    const folder = this.options.stateFolder;
    if (folder === undefined) return undefined;
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      // A link would make wherever it points writable to the server.
      if (lstatSync(folder).isSymbolicLink()) return undefined;
      return existingFolders([folder])[0];
    } catch {
      return undefined;
    }
  }

  private lastStderr(): string {
    const lines = this.stderrTail.trim().split("\n").filter((l) => l.trim() !== "");
    const last = lines[lines.length - 1];
    return last === undefined ? "" : `; its last output: ${last.trim().slice(0, 300)}`;
  }

  private failureMessage(reason: string): string {
    const retry = this.state.status === "failed" && this.state.retryAt !== undefined ? " Cairn will retry it shortly." : "";
    return `MCP server ${this.config.name} could not start: ${reason}.${retry} If it keeps failing, tell the user to check its entry in ${this.config.file} (cairn mcp test ${this.config.name}).`;
  }

  private gaveUpMessage(reason: string): string {
    return `MCP server ${this.config.name} is not running: ${reason}. Don't retry; tell the user to check its entry in ${this.config.file} (cairn mcp test ${this.config.name}), or carry on without it.`;
  }
}

/**
 * Where a sandboxed server keeps what it writes: the XDG state, data and cache folders under its
 * state folder, and npm's cache for npx (HOME and XDG_CONFIG_HOME stay the person's: a server
 * reads its config there). The memory server writes beside its own code unless told, so it is told.
 */
function stateEnv(state: string, config: ServerConfig & { transport: "stdio" }): Record<string, string> {
  const env: Record<string, string> = {
    XDG_STATE_HOME: path.join(state, "state"),
    XDG_DATA_HOME: path.join(state, "data"),
    XDG_CACHE_HOME: path.join(state, "cache"),
    CAIRN_MCP_STATE_DIR: state,
    // npx keeps the packages it runs in npm's cache, under the person's read-only home otherwise.
    npm_config_cache: path.join(state, "cache", "npm"),
  };
  for (const key of ["XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"]) mkdirSync(env[key]!, { recursive: true });
  if (isMemoryServer(config)) env.MEMORY_FILE_PATH = path.join(state, "memory.jsonl");
  return env;
}

/** @modelcontextprotocol/server-memory, run by npx, by its bin, or by its script. */
function isMemoryServer(config: { command: string; args: string[] }): boolean {
  return [config.command, ...config.args].some((part) => /(^|[/@])server-memory(@[^/\s]*)?($|[/\\])|mcp-server-memory$/.test(part));
}

/** Waits for a promise, or rejects as soon as the signal aborts (the work itself goes on). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

async function listAllTools(client: Client, timeout: number): Promise<SdkTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: SdkTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined && tools.length < 10_000);
  return tools;
}

function refusedByHttpStatus(error: unknown): boolean {
  const sdk = loadedMcpSdk();
  return sdk !== undefined && error instanceof sdk.StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500;
}

/** Transport trouble (the process or socket is gone), as opposed to an error the server answered with. */
function isConnectionError(error: unknown): boolean {
  if (isMcpError(error)) return isMcpError(error, "ConnectionClosed");
  if (!(error instanceof Error)) return false;
  const sdk = loadedMcpSdk();
  if (sdk && (error instanceof sdk.StreamableHTTPError || error instanceof sdk.SseError)) return true;
  const code = (error as NodeJS.ErrnoException).code ?? (error.cause as NodeJS.ErrnoException | undefined)?.code;
  if (code && /^(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|ETIMEDOUT|UND_ERR_SOCKET)$/.test(code)) return true;
  return /not connected|fetch failed|socket hang up/i.test(error.message);
}

/** An error on one line of reasonable length (servers answer with whole HTML pages). */
export function errorText(error: unknown): string {
  let text: string;
  if (isMcpError(error)) text = error.message.replace(/^MCP error -?\d+: /, "");
  else if (error instanceof Error) text = `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}`;
  else text = String(error);
  const line = text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
