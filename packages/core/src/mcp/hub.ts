import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { loadMcpConfig, type ServerConfig, type ServerSource, type TransportKind } from "./config.js";
import { DEFAULT_RESTART_DELAYS_MS, McpConnection, McpHubError, untilAborted, type ServerState } from "./connection.js";
import { describeServers, summaryLine } from "./describe.js";
import { isTrusted, trustRecord } from "../trust/trust-store.js";
import type { UntrustedConfig } from "../trust/untrusted.js";
import { approveProjectServer, configHash, isProjectServerApproved, projectFileDigest } from "./project-approval.js";
import { checkArguments } from "./schema-check.js";
import { isMcpError } from "./sdk.js";
import { ToolCache, type McpToolInfo } from "./tool-cache.js";
import type { CommandSandbox } from "../sandbox/index.js";

/** One configured server as hosts and the model see it. */
export type ServerInfo = {
  name: string;
  source: ServerSource;
  file: string;
  /** Undefined for an entry that could not be read. */
  transport: TransportKind | undefined;
  state: ServerState;
  /** Known once it has connected (now, or in an earlier run: then `toolsFrom` is "cache"). */
  toolCount: number | undefined;
  toolsFrom: "live" | "cache" | undefined;
  /** The server's title and the first line of its instructions, when known. */
  summary: string | undefined;
  autoApprove: string[];
  /** A project server that replaces a global one of the same name. */
  overridesGlobal: boolean;
};

export type McpHubOptions = {
  /** CAIRN_HOME: mcp_settings.json, mcp_approvals.json, mcp_cache.json. */
  home: string;
  /** The workspace root: its .mcp.json, and the project an approval is for. */
  cwd: string;
  /** For ${VAR} expansion, and the safe subset a stdio server inherits. Defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Waits before each automatic restart; its length is how many attempts before giving up. */
  restartDelaysMs?: readonly number[];
  /** The OS sandbox stdio servers start in (unless their global entry says "sandbox": false). */
  sandbox?: CommandSandbox;
  /**
   * Servers a host brings for this session (an editor's, over ACP). The person configured them
   * there, so they open like their own; one replaces a file's server of the same name.
   */
  servers?: readonly ServerConfig[];
};

export type McpResources = { resources: Resource[]; templates: ResourceTemplate[] };

type Entry =
  | { kind: "server"; config: ServerConfig; connection: McpConnection; gate: "open" | "disabled" | "needs-approval"; overridesGlobal: boolean }
  | { kind: "invalid"; name: string; source: ServerSource; file: string; reason: string; detail: string; overridesGlobal: boolean };

/**
 * The MCP servers of one workspace. Nothing starts at load: a server connects the first time a
 * call (or a request for its tools) needs it, several at once in parallel; a project's servers
 * start only once the person approved them.
 */
export class McpHub {
  /** One line per entry that could not be read (the other servers still work). */
  readonly problems: string[];
  /** The workspace, as a real path (the key of project approvals). */
  readonly project: string;
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(info: ServerInfo) => void>();
  private readonly cache: ToolCache;
  private projectFile = "";
  /** The person trusted the workspace's .mcp.json as it is now (cairn trust). */
  private projectTrusted = false;
  private sandbox: CommandSandbox | undefined;

  private constructor(
    private readonly home: string,
    project: string,
    private readonly env: Record<string, string | undefined>,
    private readonly restartDelaysMs: readonly number[],
  ) {
    this.project = project;
    this.cache = ToolCache.in(home);
    this.problems = [];
  }

  /** Reads both config files (an McpConfigError if either is broken as a whole); starts nothing. */
  static load(options: McpHubOptions): McpHub {
    const env = options.env ?? process.env;
    const project = existsSync(options.cwd) ? realpathSync(options.cwd) : path.resolve(options.cwd);
    const hub = new McpHub(options.home, project, env, options.restartDelaysMs ?? DEFAULT_RESTART_DELAYS_MS);
    hub.sandbox = options.sandbox;
    const config = loadMcpConfig({ home: options.home, cwd: project, env });
    const overridden = new Set(config.overridden);
    // `cairn trust` of the whole file opens all its servers; `cairn mcp approve` opens one entry.
    hub.projectFile = config.projectFile.file;
    hub.projectTrusted = hub.trustedNow(config.projectFile.text);
    for (const server of config.servers) hub.addServer(server, overridden.has(server.name) && server.source === "project");
    for (const server of options.servers ?? []) hub.addServer(server, false);
    for (const problem of config.problems) {
      hub.problems.push(problem.message);
      hub.entries.set(problem.name, {
        kind: "invalid",
        name: problem.name,
        source: problem.source,
        file: problem.file,
        reason: problem.message,
        detail: problem.detail,
        overridesGlobal: overridden.has(problem.name) && problem.source === "project",
      });
    }
    return hub;
  }

  servers(): ServerInfo[] {
    return [...this.entries.keys()].map((name) => this.info(name)).filter((i): i is ServerInfo => i !== undefined);
  }

  server(name: string): ServerInfo | undefined {
    return this.info(name);
  }

  /** Called on every state or tool-list change of any server. Returns the unsubscribe function. */
  subscribe(listener: (info: ServerInfo) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The tools the model may use, from the live server or the cache of an earlier run; undefined if never seen. */
  knownTools(name: string): McpToolInfo[] | undefined {
    const entry = this.entries.get(name);
    if (entry?.kind !== "server") return undefined;
    const tools = entry.connection.tools ?? this.cached(entry.config)?.tools;
    return tools?.filter((t) => !entry.config.disabledTools.includes(t.name));
  }

  /** The server's tools, connecting it if needed. */
  async listTools(name: string, signal?: AbortSignal): Promise<McpToolInfo[]> {
    const entry = this.usable(name);
    await untilAborted(entry.connection.connected(), signal);
    return this.knownTools(name) ?? [];
  }

  /** The process id of a running stdio server. */
  processId(name: string): number | undefined {
    const entry = this.entries.get(name);
    return entry?.kind === "server" ? entry.connection.pid : undefined;
  }

  /** The server's title (or name) as it introduces itself, once it has connected. */
  title(name: string): string | undefined {
    const entry = this.entries.get(name);
    return entry?.kind === "server" ? entry.connection.serverTitle : undefined;
  }

  /** The server's instructions (for the model), once it has connected. */
  instructions(name: string): string | undefined {
    const entry = this.entries.get(name);
    return entry?.kind === "server" ? entry.connection.instructions : undefined;
  }

  /** Connects the named servers (default: all that may start) in parallel; failures show in their state. */
  async connectAll(names?: string[]): Promise<void> {
    const wanted = names ?? [...this.entries.values()].flatMap((e) => (e.kind === "server" && e.gate === "open" ? [e.config.name] : []));
    await Promise.all(wanted.map((name) => this.listTools(name).catch(() => undefined)));
  }

  async listResources(name: string, signal?: AbortSignal): Promise<McpResources> {
    const entry = this.usable(name);
    const client = await untilAborted(entry.connection.connected(), signal);
    if (!client.getServerCapabilities()?.resources) return { resources: [], templates: [] };
    return this.request(entry, "listing resources", async (c, options) => {
      const resources = await c.listResources(undefined, options);
      const templates = await c.listResourceTemplates(undefined, options).catch(() => ({ resourceTemplates: [] }));
      return { resources: resources.resources, templates: templates.resourceTemplates };
    }, signal);
  }

  /** Calls a tool after checking the arguments against its input schema (a bad call never reaches the server). */
  async callTool(name: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const entry = this.usable(name);
    await untilAborted(entry.connection.connected(), signal);
    const tools = this.knownTools(name) ?? [];
    const found = tools.find((t) => t.name === tool);
    if (!found) {
      if (entry.config.disabledTools.includes(tool)) {
        throw new McpHubError(`Tool ${tool} of MCP server ${name} is turned off in ${entry.config.file}. Use another tool, or ask the user to enable it.`);
      }
      const list = tools.map((t) => t.name).join(", ") || "(none)";
      throw new McpHubError(`MCP server ${name} has no tool named "${tool}". Its tools: ${list}.`);
    }
    const check = await checkArguments(found.inputSchema, args);
    if (!check.ok) {
      throw new McpHubError(
        `Invalid arguments for tool ${tool} of MCP server ${name} (the call was not sent):\n${check.problems.map((p) => `- ${p}`).join("\n")}\nIts input schema: ${JSON.stringify(withoutMetaSchema(found.inputSchema))}\nCall it again with arguments that match the schema.`,
      );
    }
    const result = await this.request(entry, `tool ${tool}`, (c, options) => c.callTool({ name: tool, arguments: args }, undefined, options) as Promise<CallToolResult>, signal);
    if (result.isError !== true) return result;
    // The server's raw EROFS says nothing of what to change: add the one line that does.
    const hint = entry.connection.refusedWriteHint(JSON.stringify(result.content ?? []));
    return hint === undefined ? result : { ...result, content: [...(result.content ?? []), { type: "text", text: hint }] };
  }

  /** The one-line hint for a write the sandbox refused the server since it started (cairn mcp test). */
  refusedWrite(name: string): string | undefined {
    const entry = this.entries.get(name);
    return entry?.kind === "server" ? entry.connection.refusedWriteHint() : undefined;
  }

  async readResource(name: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const entry = this.usable(name);
    return this.request(entry, `reading ${uri}`, (c, options) => c.readResource({ uri }, options), signal);
  }

  /** True when the server's configuration lists the tool in autoApprove. */
  autoApproves(name: string, tool: string): boolean {
    const entry = this.entries.get(name);
    return entry?.kind === "server" && entry.gate === "open" && entry.config.autoApprove.includes(tool);
  }

  /** Approves a project server's current entry (the person said yes); it may start from now on. */
  approve(name: string): ServerConfig {
    const entry = this.entries.get(name);
    if (!entry) throw new McpHubError(`There is no MCP server named ${name}.`);
    if (entry.kind === "invalid") throw new McpHubError(entry.reason);
    if (entry.config.source === "project") approveProjectServer(this.home, this.project, name, entry.config.raw);
    if (entry.gate === "open" && entry.config.source === "project" && this.projectTrusted && !entry.connection.tools && !isProjectServerApproved(this.home, this.project, name, entry.config.raw)) {
      // Opened by trust in the whole file: before it first starts, the file and what it runs must still be as trusted.
      const text = readTextOrEmpty(this.projectFile);
      if (!this.trustedNow(text)) {
        throw new McpHubError(`MCP server ${name} was not started: ${this.projectFile} or a file it runs changed since the user trusted it. Ask the user to review it and run: cairn trust`);
      }
    }
    if (entry.gate === "needs-approval") {
      entry.gate = "open";
      this.notify(name);
    }
    return entry.config;
  }

  /** Whether this text of .mcp.json, and the files its servers run, are what the person trusted. */
  private trustedNow(text: string): boolean {
    return isTrusted(this.home, this.project, this.projectFile, projectFileDigest(this.project, this.projectFile, text).digest);
  }

  /** The workspace's .mcp.json when some of its servers were held back because the person has not trusted it. */
  untrusted(): UntrustedConfig | undefined {
    const held = [...this.entries.values()].some((e) => e.kind === "server" && e.gate === "needs-approval");
    if (!held) return undefined;
    return { file: this.projectFile, workspace: this.project, what: "MCP servers", changed: trustRecord(this.home, this.project, this.projectFile) !== undefined };
  }

  /** The system prompt's MCP section: each server, a line about it, its tool names. Empty without servers. */
  promptSection(): string {
    return describeServers(
      this.servers().map((info) => ({ info, tools: this.knownTools(info.name)?.map((t) => t.name) })),
    );
  }

  /** Stops every server this hub started. */
  async close(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => (e.kind === "server" ? e.connection.close() : undefined)));
  }

  private addServer(config: ServerConfig, overridesGlobal: boolean): void {
    const gate = config.disabled
      ? "disabled"
      : config.source === "project" && !this.projectTrusted && !isProjectServerApproved(this.home, this.project, config.name, config.raw)
        ? "needs-approval"
        : "open";
    const connection = new McpConnection(config, {
      env: this.env,
      ...(this.sandbox ? { sandbox: this.sandbox, stateFolder: this.stateFolder(config), cairnHome: this.home } : {}),
      restartDelaysMs: this.restartDelaysMs,
      onState: () => this.notify(config.name),
      onTools: (tools, title) => {
        this.cache.put(this.cacheKey(config), { hash: configHash(config.raw), updatedAt: new Date().toISOString(), summary: summaryLine(title, connection.instructions), tools });
        this.notify(config.name);
      },
    });
    this.entries.set(config.name, { kind: "server", config, connection, gate, overridesGlobal });
  }

  /**
   * CAIRN_HOME/mcp-state/<name>: where the server may write in the sandbox, kept across tasks. A
   * project's server gets one per workspace, apart from the person's own server of that name.
   */
  private stateFolder(config: ServerConfig): string {
    const name = /^\.+$/.test(config.name) ? `_${config.name.length}` : config.name;
    if (config.source !== "project") return path.join(this.home, "mcp-state", name);
    const project = createHash("sha256").update(this.project).digest("hex").slice(0, 12);
    return path.join(this.home, "mcp-state", `project-${project}`, name);
  }

  /** The entry of a server that may be used now, or an McpHubError saying why not and what to do. */
  private usable(name: string): Extract<Entry, { kind: "server" }> {
    const entry = this.entries.get(name);
    if (!entry) {
      const names = [...this.entries.keys()].join(", ") || "none are configured";
      throw new McpHubError(`There is no MCP server named "${name}" (servers: ${names}).`);
    }
    if (entry.kind === "invalid") throw new McpHubError(`${entry.reason} Tell the user to fix that entry.`);
    if (entry.gate === "disabled") throw new McpHubError(`MCP server ${name} is disabled in ${entry.config.file}. Ask the user to enable it if you need it.`);
    if (entry.gate === "needs-approval") {
      throw new McpHubError(
        `MCP server ${name} comes from this project's .mcp.json and the user has not trusted it yet, so it was not started. Ask the user to review it and run: cairn trust (the whole file) or cairn mcp approve ${name}`,
      );
    }
    return entry;
  }

  private async request<T>(
    entry: Extract<Entry, { kind: "server" }>,
    what: string,
    run: (client: Client, options: RequestOptions) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      return await entry.connection.request(what, run, signal);
    } catch (error) {
      // The server's own words, whole: a validation message or a traceback can be what the model needs.
      if (isMcpError(error)) {
        const hint = entry.connection.refusedWriteHint(error.message);
        throw new McpHubError(`MCP server ${entry.config.name} returned an error for ${what}: ${error.message.replace(/^MCP error -?\d+: /, "")}${hint === undefined ? "" : `\n${hint}`}`);
      }
      throw error;
    }
  }

  private info(name: string): ServerInfo | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    if (entry.kind === "invalid") {
      return {
        name,
        source: entry.source,
        file: entry.file,
        transport: undefined,
        state: { status: "failed", reason: `invalid entry in ${entry.file}: ${entry.detail}` },
        toolCount: undefined,
        toolsFrom: undefined,
        summary: undefined,
        autoApprove: [],
        overridesGlobal: entry.overridesGlobal,
      };
    }
    const { config, connection } = entry;
    const cached = connection.tools ? undefined : this.cached(config);
    const state: ServerState = entry.gate === "open" ? connection.state : { status: entry.gate };
    return {
      name,
      source: config.source,
      file: config.file,
      transport: config.transport,
      state,
      toolCount: this.knownTools(name)?.length,
      toolsFrom: connection.tools ? "live" : cached ? "cache" : undefined,
      summary: connection.tools ? summaryLine(connection.serverTitle, connection.instructions) : cached?.summary,
      autoApprove: config.autoApprove,
      overridesGlobal: entry.overridesGlobal,
    };
  }

  private cached(config: ServerConfig) {
    return this.cache.get(this.cacheKey(config), configHash(config.raw));
  }

  private cacheKey(config: ServerConfig): string {
    return config.source === "project" ? `project:${this.project}:${config.name}` : `global:${config.name}`;
  }

  private notify(name: string): void {
    if (this.listeners.size === 0) return;
    const info = this.info(name);
    if (info) for (const listener of this.listeners) listener(info);
  }
}

function readTextOrEmpty(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

export function withoutMetaSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}
