import { realpathSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  addServerEntry,
  approveProjectServer,
  cairnHome,
  globalConfigFile,
  McpConfigError,
  McpHub,
  McpHubError,
  projectConfigFile,
  removeServerEntry,
  mcpTaskSandbox,
  stateText,
  type CommandSandbox,
  type ServerConfig,
  type ServerInfo,
} from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";

export const mcpHelp = `Usage: cairn mcp <command> [options]

MCP servers come from CAIRN_HOME/mcp_settings.json (global) and .mcp.json in the workspace
(project; a project server replaces a global one of the same name). Servers in a project's
.mcp.json start only after you trust the file (cairn trust) or approve the server (cairn mcp approve),
and again after it changes.

Commands:
  list [--no-connect] [--json]          servers, where they come from, transport, state, tools
                                        (connects to each to count its tools unless --no-connect)
  add <name> [--env K=V]... -- <command> [args...]
                                        a local (stdio) server
  add <name> --url <url> [--transport http|sse] [--header "K: V"]...
                                        a remote server (streamable HTTP by default)
  remove <name>                         take a server out of its file
  test <name>                           start it as a task would (in the sandbox), list its tools,
                                        show the timing, and try a harmless write where it can
  approve <name>                        allow a project server from .mcp.json to start

Options:
  --cwd dir     the workspace (default: the current folder)
  --project     add/remove in the workspace's .mcp.json instead of the global file`;

type Values = {
  cwd?: string | undefined;
  json?: boolean | undefined;
  "no-connect"?: boolean | undefined;
  project?: boolean | undefined;
  url?: string | undefined;
  transport?: string | undefined;
  header?: string[] | undefined;
  env?: string[] | undefined;
  help?: boolean | undefined;
};

const options = {
  cwd: { type: "string" },
  json: { type: "boolean" },
  "no-connect": { type: "boolean" },
  project: { type: "boolean" },
  url: { type: "string" },
  transport: { type: "string" },
  header: { type: "string", multiple: true },
  env: { type: "string", multiple: true },
  help: { type: "boolean", short: "h" },
} as const;

/** `cairn mcp list|add|remove|test|approve`: the MCP servers a task in the workspace would have. */
export async function mcpCommand(argv: string[], io: Io): Promise<number> {
  const split = argv.indexOf("--");
  const own = split === -1 ? argv : argv.slice(0, split);
  const commandLine = split === -1 ? [] : argv.slice(split + 1);
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: own, allowPositionals: true, strict: true, options }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn mcp --help)`);
  }
  const [sub, name, ...extra] = positionals;
  if (values.help || sub === undefined || sub === "help") {
    io.stdout(`${mcpHelp}\n`);
    return sub === undefined && !values.help ? 2 : 0;
  }
  if (extra.length > 0) throw new UsageError(`Unexpected "${extra.join(" ")}". Put a server's command after --: cairn mcp add <name> -- <command> [args...]`);
  const home = cairnHome(io.env);
  const cwd = workspace(values.cwd ?? process.cwd());
  try {
    switch (sub) {
      case "list":
        return await list(home, cwd, values, io);
      case "add":
        return add(home, cwd, required(name, "add"), values, commandLine, io);
      case "remove":
        return remove(home, cwd, required(name, "remove"), values, io);
      case "test":
        return await test(home, cwd, required(name, "test"), io);
      case "approve":
        return approve(home, cwd, required(name, "approve"), io);
      default:
        throw new UsageError(`Unknown mcp command "${sub}". Use list, add, remove, test or approve (see cairn mcp --help).`);
    }
  } catch (error) {
    if (error instanceof McpConfigError) throw new UsageError(error.message);
    throw error;
  }
}

function loadHub(home: string, cwd: string, io: Io): McpHub {
  // No automatic restarts: a command reports what happened once and exits. Servers start in the
  // sandbox a task would give them, so what works here works in a task.
  const hub = McpHub.load({ home, cwd, env: io.env, restartDelaysMs: [], ...taskSandbox(home, cwd, io) });
  for (const problem of hub.problems) io.stderr(`cairn: ${problem}\n`);
  return hub;
}

/** The OS sandbox a task in the workspace would open; none (said once) when settings cannot be read. */
function taskSandbox(home: string, cwd: string, io: Io): { sandbox?: CommandSandbox } {
  const opened = mcpTaskSandbox({ cwd, home, env: io.env });
  if (opened.ok) return opened.sandbox === undefined ? {} : { sandbox: opened.sandbox };
  io.stderr(`cairn: servers start without the sandbox here: ${opened.error}\n`);
  return {};
}

async function list(home: string, cwd: string, values: Values, io: Io): Promise<number> {
  const hub = loadHub(home, cwd, io);
  try {
    if (!values["no-connect"]) await hub.connectAll();
    const servers = hub.servers();
    if (values.json) {
      io.stdout(`${JSON.stringify(servers.map((s) => ({ ...s, stateText: stateText(s.state) })))}\n`);
      return 0;
    }
    if (servers.length === 0) {
      io.stdout(`No MCP servers configured. Add one with: cairn mcp add <name> -- <command> [args...]\n  (global: ${globalConfigFile(home)}, project: ${projectConfigFile(cwd)})\n`);
      return 0;
    }
    const rows = servers.map((s) => [s.name, s.source + (s.overridesGlobal ? "*" : ""), s.transport ?? "-", stateText(s.state), toolCount(s)]);
    const header = ["name", "source", "transport", "state", "tools"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
    const line = (cells: string[]) => `${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join("  ")}\n`;
    io.stdout(line(header));
    for (const row of rows) io.stdout(line(row));
    if (servers.some((s) => s.overridesGlobal)) io.stdout("* replaces the global server of the same name\n");
    const pending = servers.filter((s) => s.state.status === "needs-approval").map((s) => s.name);
    if (pending.length > 0) io.stdout(`Approve project servers after reviewing ${projectConfigFile(hub.project)}: cairn trust (the whole file), or ${pending.map((n) => `cairn mcp approve ${n}`).join("; ")}\n`);
    return 0;
  } finally {
    await hub.close();
  }
}

function toolCount(info: ServerInfo): string {
  if (info.toolCount === undefined) return "-";
  return info.toolsFrom === "cache" ? `${info.toolCount} (last seen)` : String(info.toolCount);
}

function add(home: string, cwd: string, name: string, values: Values, commandLine: string[], io: Io): number {
  if (!/^[\w.-]+$/.test(name)) throw new UsageError(`Server names may use letters, digits, '_', '-' and '.'; got "${name}".`);
  let entry: Record<string, unknown>;
  if (values.url !== undefined) {
    if (commandLine.length > 0) throw new UsageError("Give either --url or a command after --, not both.");
    const transport = values.transport ?? "http";
    if (transport !== "http" && transport !== "sse") throw new UsageError(`--transport must be http or sse, got "${transport}".`);
    const headers = pairs(values.header ?? [], "--header", /^([^:=]+)\s*[:=]\s*(.*)$/);
    entry = { type: transport, url: values.url, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  } else {
    const [command, ...args] = commandLine;
    if (command === undefined) throw new UsageError("Give the server's command after --, e.g. cairn mcp add files -- npx -y @modelcontextprotocol/server-filesystem ., or a --url.");
    if (values.transport !== undefined || values.header !== undefined) throw new UsageError("--transport and --header are for remote servers (--url).");
    const env = pairs(values.env ?? [], "--env", /^([^=]+)=(.*)$/);
    entry = { command, ...(args.length > 0 ? { args } : {}), ...(Object.keys(env).length > 0 ? { env } : {}) };
  }
  const file = values.project ? projectConfigFile(cwd) : globalConfigFile(home);
  const { replaced } = addServerEntry(file, name, entry);
  // The person wrote this entry themselves, so it needs no second approval.
  const approved = values.project ? " (approved for this workspace)" : "";
  if (values.project) approveProjectServer(home, cwd, name, entry);
  io.stdout(`${replaced ? "Replaced" : "Added"} MCP server ${name} in ${file}${approved}. Check it with: cairn mcp test ${name}\n`);
  return 0;
}

function remove(home: string, cwd: string, name: string, values: Values, io: Io): number {
  const file = values.project ? projectConfigFile(cwd) : globalConfigFile(home);
  if (!removeServerEntry(file, name)) {
    const elsewhere = values.project ? "" : ` (a project server? add --project)`;
    throw new UsageError(`There is no MCP server named ${name} in ${file}${elsewhere}.`);
  }
  io.stdout(`Removed MCP server ${name} from ${file}.\n`);
  return 0;
}

async function test(home: string, cwd: string, name: string, io: Io): Promise<number> {
  const hub = loadHub(home, cwd, io);
  try {
    const info = hub.server(name);
    if (!info) throw new UsageError(`There is no MCP server named ${name} (see cairn mcp list).`);
    if (info.state.status === "needs-approval") {
      io.stderr(`cairn: ${name} comes from ${info.file} and is not trusted, so it was not started. Review it, then: cairn trust (the whole file) or cairn mcp approve ${name}\n`);
      return 1;
    }
    if (info.state.status === "disabled") {
      io.stderr(`cairn: ${name} is disabled in ${info.file} ("disabled": true); it was not started.\n`);
      return 1;
    }
    const started = performance.now();
    let tools;
    try {
      tools = await hub.listTools(name);
    } catch (error) {
      if (!(error instanceof McpHubError)) throw error;
      const state = hub.server(name)?.state;
      io.stderr(`cairn: ${name} failed after ${Math.round(performance.now() - started)} ms: ${state?.status === "failed" ? state.reason : error.message}\n`);
      return 1;
    }
    const ms = Math.round(performance.now() - started);
    const refused = (await exerciseWrite(hub, name, tools)) ?? hub.refusedWrite(name);
    if (refused !== undefined) {
      io.stderr(`cairn: ${refused}\n`);
      return 1;
    }
    const summary = hub.server(name)?.summary;
    io.stdout(`Connected to ${name} (${info.transport}) in ${ms} ms${summary ? `: ${summary}` : ""}\n`);
    io.stdout(`${tools.length} tool${tools.length === 1 ? "" : "s"}: ${tools.map((t) => t.name).join(", ") || "(none)"}\n`);
    return 0;
  } finally {
    await hub.close();
  }
}

/**
 * A server whose tools write gets one write tried where that is harmless: the memory server's
 * create_entities of an entity it then deletes. The one-line hint when the sandbox refused it.
 */
async function exerciseWrite(hub: McpHub, name: string, tools: Array<{ name: string }>): Promise<string | undefined> {
  const has = (tool: string) => tools.some((t) => t.name === tool);
  if (!has("create_entities") || !has("delete_entities")) return undefined;
  const probe = "cairn-mcp-test";
  try {
    const created = await hub.callTool(name, "create_entities", { entities: [{ name: probe, entityType: "test", observations: [] }] });
    if (created.isError === true) return hub.refusedWrite(name) ?? lastText(created.content);
    await hub.callTool(name, "delete_entities", { entityNames: [probe] });
    return undefined;
  } catch (error) {
    if (!(error instanceof McpHubError)) throw error;
    return error.message.split("\n").at(-1);
  }
}

function lastText(content: unknown): string {
  const items = Array.isArray(content) ? (content as Array<{ type?: string; text?: string }>) : [];
  const text = items.filter((c) => c.type === "text").at(-1)?.text ?? "a write failed";
  return text.split("\n")[0]!;
}

function approve(home: string, cwd: string, name: string, io: Io): number {
  const hub = McpHub.load({ home, cwd, env: io.env });
  const info = hub.server(name);
  if (!info) throw new UsageError(`There is no MCP server named ${name} in ${projectConfigFile(hub.project)} (see cairn mcp list).`);
  if (info.source === "global") {
    io.stdout(`${name} is a global server (${info.file}); only servers from a project's .mcp.json need approval.\n`);
    return 0;
  }
  let config: ServerConfig;
  try {
    config = hub.approve(name);
  } catch (error) {
    if (error instanceof McpHubError) throw new UsageError(error.message);
    throw error;
  }
  const was = info.state.status === "needs-approval" || info.state.status === "disabled" ? "Approved" : "Already approved";
  const off = config.disabled ? ` It is disabled in ${config.file}, so it starts once "disabled" is removed.` : "";
  io.stdout(`${was} MCP server ${name} for ${hub.project}: ${describe(config)}.${off}\n`);
  return 0;
}

function describe(config: ServerConfig): string {
  const auto = config.autoApprove.length > 0 ? `; runs without asking: ${config.autoApprove.join(", ")}` : "";
  if (config.transport === "stdio") return `runs ${[config.command, ...config.args].join(" ")}${auto}`;
  return `connects to ${config.url} (${config.transport})${auto}`;
}

function pairs(items: string[], flag: string, pattern: RegExp): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const match = pattern.exec(item);
    if (!match?.[1]) throw new UsageError(`${flag} "${item}": write it as ${flag === "--env" ? "KEY=value" : '"Name: value"'}.`);
    out[match[1].trim()] = (match[2] ?? "").trim();
  }
  return out;
}

function required(name: string | undefined, sub: string): string {
  if (name === undefined) throw new UsageError(`Which server? cairn mcp ${sub} <name>`);
  return name;
}

function workspace(dir: string): string {
  const stats = statSync(dir, { throwIfNoEntry: false });
  if (!stats?.isDirectory()) throw new UsageError(`--cwd ${dir}: no such folder. Give the workspace folder.`);
  return realpathSync(dir);
}
