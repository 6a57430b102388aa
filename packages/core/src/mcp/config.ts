import { ConfigFileError, parseJsonConfig, readConfigText, unknownKeyProblem } from "../disk/config-file.js";
import os from "node:os";
import path from "node:path";

/** Where a server is configured: CAIRN_HOME/mcp_settings.json, or the workspace's .mcp.json. */
export type ServerSource = "global" | "project";
export type TransportKind = "stdio" | "sse" | "http";

type Common = {
  name: string;
  source: ServerSource;
  /** The file it came from, for messages. */
  file: string;
  disabled: boolean;
  /** Tool names that run without asking (Cline's autoApprove, Roo's alwaysAllow). */
  autoApprove: string[];
  /** Tool names hidden from the model and refused (Roo's disabledTools). */
  disabledTools: string[];
  /** Per call (and per connection attempt); `timeout` in the file is in seconds. */
  timeoutMs: number;
  /** The entry exactly as written (before ${VAR} expansion): what a project approval is for. */
  raw: Record<string, unknown>;
};

export type StdioServerConfig = Common & {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /**
   * Run inside the OS sandbox when there is one (default). `"sandbox": false` opts a server out,
   * honoured only in the person's own mcp_settings.json, never in a workspace's .mcp.json.
   */
  sandbox: boolean;
  /**
   * Absolute folders the server may write in the sandbox besides its state folder
   * (CAIRN_HOME/mcp-state/<name>) and the workspace: never the home folder or CAIRN_HOME. Honoured
   * only in the person's own mcp_settings.json.
   */
  writablePaths?: string[];
};

export type RemoteServerConfig = Common & {
  transport: "sse" | "http";
  url: string;
  headers: Record<string, string>;
  /** A `url` without a `type`: try streamable HTTP first, then the older SSE transport. */
  fallbackToSse: boolean;
};

export type ServerConfig = StdioServerConfig | RemoteServerConfig;

/** An entry that could not be read; the other servers of the file still load. */
export type ServerConfigProblem = {
  name: string;
  source: ServerSource;
  file: string;
  /** One line naming the server, the file and the problem. */
  message: string;
  /** The problem alone. */
  detail: string;
};

/** A config file a person must fix: the message names the file and the problem, on one line. */
export class McpConfigError extends Error {
  override name = "McpConfigError";
}

export const DEFAULT_TIMEOUT_SECONDS = 60;

export const globalConfigFile = (home: string): string => path.join(home, "mcp_settings.json");
export const projectConfigFile = (cwd: string): string => path.join(cwd, ".mcp.json");

export type ConfigFile = {
  servers: ServerConfig[];
  problems: ServerConfigProblem[];
  /** The text the servers were read from ("" for a missing file): what trust in the file is checked against. */
  text?: string;
};

/**
 * Reads one `{"mcpServers": {...}}` file (Claude Code's and Cline's shapes). A missing file has
 * no servers; unreadable JSON or a wrong top-level shape is an McpConfigError; a bad entry is a
 * problem and the rest still load.
 */
export function readConfigFile(
  file: string,
  source: ServerSource,
  options: { env: Record<string, string | undefined>; cwd: string; home?: string },
): ConfigFile {
  let text: string | undefined;
  try {
    text = readConfigText(file);
  } catch (error) {
    if (error instanceof ConfigFileError) throw new McpConfigError(error.message);
    throw error;
  }
  if (text === undefined) return { servers: [], problems: [], text: "" };
  const entries = serverEntries(file, text, { strict: source === "global" });
  const servers: ServerConfig[] = [];
  const problems: ServerConfigProblem[] = [];
  for (const [name, raw] of Object.entries(entries)) {
    try {
      servers.push(parseServerEntry(name, raw, { source, file, env: options.env, cwd: options.cwd, home: options.home }));
    } catch (error) {
      if (!(error instanceof EntryError)) throw error;
      if (error instanceof UnknownEntryKeyError && source === "global") throw new McpConfigError(`MCP server "${name}" in ${file}: ${error.message} Fix the file or move it aside.`);
      problems.push({ name, source, file, message: `MCP server "${name}" in ${file}: ${error.message}`, detail: error.message });
    }
  }
  return { servers, problems, text };
}

/** The `mcpServers` object of a file's text; an McpConfigError says what is wrong with it. */
export function serverEntries(file: string, text: string, options: { strict?: boolean } = {}): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseJsonConfig(file, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    if (error instanceof ConfigFileError) throw new McpConfigError(error.message);
    throw error;
  }
  if (parsed === undefined) return {};
  if (!isPlainObject(parsed)) throw new McpConfigError(`${file} must hold a JSON object like {"mcpServers": {...}}.`);
  // Cairn's own file holds only servers; a project's .mcp.json may carry other tools' keys.
  const unknownTop = options.strict ? Object.keys(parsed).find((key) => key !== "mcpServers") : undefined;
  if (unknownTop !== undefined) throw new McpConfigError(`${file}: ${unknownKeyProblem(unknownTop, ["mcpServers"])}; the file holds {"mcpServers": {...}}. Fix the file or move it aside.`);
  const servers = parsed.mcpServers;
  if (servers === undefined) return {};
  if (!isPlainObject(servers)) throw new McpConfigError(`${file}: "mcpServers" must be an object mapping server names to their settings.`);
  return servers;
}

class EntryError extends Error {}

/** An entry with a key Cairn does not know: in Cairn's own mcp_settings.json this stops the run. */
class UnknownEntryKeyError extends EntryError {}

/** The keys of a server entry, from Claude Code's, Cline's and Roo's shapes, plus Cairn's `sandbox` and `writablePaths`. */
const entryKeys = ["type", "transportType", "command", "args", "env", "cwd", "url", "httpUrl", "headers", "disabled", "autoApprove", "alwaysAllow", "disabledTools", "timeout", "sandbox", "writablePaths"];

type EntryOptions = { source: ServerSource; file: string; env: Record<string, string | undefined>; cwd: string; home?: string | undefined };

function parseServerEntry(name: string, raw: unknown, options: EntryOptions): ServerConfig {
  if (!isPlainObject(raw)) throw new EntryError("its settings must be an object with a command (stdio) or a url (remote).");
  if (!/^[\w.-]+$/.test(name)) throw new EntryError("use only letters, digits, '_', '-' and '.' in server names.");
  const unknownKey = Object.keys(raw).find((key) => !entryKeys.includes(key));
  // A misspelt key (disabledTool, autoAprove) would otherwise change what the server may do unseen.
  if (unknownKey !== undefined) throw new UnknownEntryKeyError(`${unknownKeyProblem(unknownKey, entryKeys)}; the keys a server takes are ${entryKeys.join(", ")}.`);
  const expand = (value: string, field: string) => expandVars(value, options.env, field);
  const common: Common = {
    name,
    source: options.source,
    file: options.file,
    disabled: optionalBoolean(raw, "disabled") ?? false,
    autoApprove: [...(optionalStrings(raw, "autoApprove") ?? []), ...(optionalStrings(raw, "alwaysAllow") ?? [])],
    disabledTools: optionalStrings(raw, "disabledTools") ?? [],
    timeoutMs: timeoutSeconds(raw) * 1000,
    raw,
  };

  const type = optionalString(raw, "type");
  const url = optionalString(raw, "url") ?? optionalString(raw, "httpUrl");
  const command = optionalString(raw, "command");
  const transport = transportOf(type, url, command);

  if (transport === "stdio") {
    if (command === undefined || command.trim() === "") throw new EntryError('a stdio server needs a "command".');
    const cwd = optionalString(raw, "cwd");
    return {
      ...common,
      transport,
      command: expand(command, "command"),
      args: (optionalStrings(raw, "args") ?? []).map((arg, i) => expand(arg, `args[${i}]`)),
      env: mapValues(optionalStringMap(raw, "env") ?? {}, (value, key) => expand(value, `env.${key}`)),
      cwd: cwd === undefined ? options.cwd : path.resolve(options.cwd, expand(cwd, "cwd")),
      sandbox: options.source === "project" || (optionalBoolean(raw, "sandbox") ?? true),
      writablePaths: writablePaths(raw, options),
    };
  }

  if (url === undefined) throw new EntryError(`a ${transport === "sse" ? "SSE" : "streamable HTTP"} server needs a "url".`);
  const expandedUrl = expand(url, "url");
  try {
    const parsed = new URL(expandedUrl);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new EntryError(`"url" must be an http:// or https:// address, got "${expandedUrl}".`);
  }
  return {
    ...common,
    transport,
    url: expandedUrl,
    headers: mapValues(optionalStringMap(raw, "headers") ?? {}, (value, key) => expand(value, `headers.${key}`)),
    fallbackToSse: type === undefined && raw.httpUrl === undefined,
  };
}

/**
 * A stdio entry's `writablePaths`: absolute (or ~/) folders, each narrower than the person's home
 * and apart from CAIRN_HOME (its settings and sessions). A project's .mcp.json cannot widen the
 * sandbox, so there the key is refused.
 */
function writablePaths(raw: Record<string, unknown>, options: EntryOptions): string[] {
  const entries = optionalStrings(raw, "writablePaths");
  if (entries === undefined || entries.length === 0) return [];
  if (options.source === "project") throw new EntryError('"writablePaths" is honoured only in your own mcp_settings.json (a project cannot widen the sandbox); move the server there.');
  const home = path.resolve(options.env.HOME?.trim() || os.homedir());
  const cairnHome = options.home === undefined ? undefined : path.resolve(options.home);
  return entries.map((entry) => {
    const expanded = entry === "~" ? home : entry.startsWith("~/") ? path.join(home, entry.slice(2)) : entry;
    if (!path.isAbsolute(expanded)) throw new EntryError(`"writablePaths" entries must be absolute folders (or start with ~/), got "${entry}".`);
    const folder = path.resolve(expanded);
    if (within(folder, home)) throw new EntryError(`"writablePaths" entry "${entry}" would make your whole home folder writable; name the folder the server needs.`);
    if (cairnHome !== undefined && (within(folder, cairnHome) || within(cairnHome, folder))) {
      throw new EntryError(`"writablePaths" entry "${entry}" overlaps CAIRN_HOME (${cairnHome}); the server's own state folder there is writable already.`);
    }
    return folder;
  });
}

/** Whether `inner` is `outer` or lies inside it. */
function within(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

function transportOf(type: string | undefined, url: string | undefined, command: string | undefined): TransportKind {
  switch (type) {
    case undefined:
      if (command !== undefined) return "stdio";
      if (url !== undefined) return "http";
      throw new EntryError('give a "command" (a local server) or a "url" (a remote one).');
    case "stdio":
      return "stdio";
    case "sse":
      return "sse";
    case "http":
    case "streamableHttp":
    case "streamable-http":
    case "streamable_http":
      return "http";
    default:
      throw new EntryError(`unknown "type" "${type}"; use stdio, sse, or http (also written streamableHttp / streamable-http).`);
  }
}

function timeoutSeconds(raw: Record<string, unknown>): number {
  const value = raw.timeout;
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new EntryError(`"timeout" must be a number of seconds above 0, got ${JSON.stringify(value)}.`);
  }
  return value;
}

/**
 * Expands `${VAR}` and `${VAR:-default}` (the default also replaces an empty value, as in sh).
 * A variable that is unset and has no default is an error naming it.
 */
export function expandVars(text: string, env: Record<string, string | undefined>, field = "value"): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && (value !== "" || fallback === undefined)) return value;
    if (fallback !== undefined) return fallback;
    throw new EntryError(`${field} uses \${${name}}, which is not set. Set ${name} in the environment, or give a default: \${${name}:-value}.`);
  });
}

function optionalString(raw: Record<string, unknown>, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new EntryError(`"${key}" must be a string.`);
  return value;
}

function optionalBoolean(raw: Record<string, unknown>, key: string): boolean | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw new EntryError(`"${key}" must be true or false.`);
  return value;
}

function optionalStrings(raw: Record<string, unknown>, key: string): string[] | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw new EntryError(`"${key}" must be a list of strings.`);
  return value as string[];
}

function optionalStringMap(raw: Record<string, unknown>, key: string): Record<string, string> | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw new EntryError(`"${key}" must be an object of string values.`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
    else if (typeof v === "string") out[k] = v;
    else throw new EntryError(`"${key}.${k}" must be a string.`);
  }
  return out;
}

function mapValues(record: Record<string, string>, fn: (value: string, key: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v, k)]));
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export type McpConfig = {
  /** Global servers, then the project's; a project server replaces a global one of the same name. */
  servers: ServerConfig[];
  problems: ServerConfigProblem[];
  /** Names a project server took over from the global file. */
  overridden: string[];
  /** The workspace's .mcp.json and the exact text its servers came from, for the trust check. */
  projectFile: { file: string; text: string };
};

/** Both files for a workspace. Throws McpConfigError when either file as a whole is broken. */
export function loadMcpConfig(options: { home: string; cwd: string; env: Record<string, string | undefined> }): McpConfig {
  const global = readConfigFile(globalConfigFile(options.home), "global", options);
  const project = readConfigFile(projectConfigFile(options.cwd), "project", options);
  const projectNames = new Set([...project.servers, ...project.problems].map((s) => s.name));
  const overridden = [...global.servers, ...global.problems].map((s) => s.name).filter((name) => projectNames.has(name));
  return {
    servers: [...global.servers.filter((s) => !projectNames.has(s.name)), ...project.servers],
    problems: [...global.problems.filter((p) => !projectNames.has(p.name)), ...project.problems],
    overridden,
    projectFile: { file: projectConfigFile(options.cwd), text: project.text ?? "" },
  };
}
