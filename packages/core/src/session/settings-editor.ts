import { mkdirSync } from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../disk/atomic-write.js";
import { ConfigFileError, describeIssue, readConfigText, readJsonConfig } from "../disk/config-file.js";
import { addServerEntry } from "../mcp/config-edit.js";
import { globalConfigFile, isPlainObject, McpConfigError, serverEntries } from "../mcp/config.js";
import { McpHub, type ServerInfo } from "../mcp/hub.js";
import { McpHubError } from "../mcp/connection.js";
import { stateText } from "../mcp/describe.js";
import { apiKeyFromEnv, providers } from "../model/providers.js";
import type { ProviderId } from "../model/types.js";
import type { ApprovalCategory } from "../policy/approval-category.js";
import { loadRules } from "../prompt/rules/load-rules.js";
import { sandboxModes, type SandboxMode } from "../sandbox/sandbox-settings.js";
import { settingsSchema, type Settings } from "../storage/settings.js";
import { settingsFromEnv, type Env } from "./overrides.js";
import { loadWorkspaceSettings } from "./workspace-settings.js";
import { mcpTaskSandbox } from "./task-sandbox.js";

/**
 * The person's settings as a settings screen shows them (the web page's Settings view, the TUI's
 * /settings), and the one way those screens change them: each change is checked by settings.json's
 * own schema before anything is written, the file is written whole or not at all, and every key
 * the screen does not show is kept as it was. A task reads the file when it opens, so a change
 * applies from the next task.
 */

/** Cline's auto-approve menu, by the names a screen shows, and the approval category each one is. */
export const autoApproveChoices = [
  { name: "Read", category: "read" },
  { name: "Edit", category: "edit" },
  { name: "Safe commands", category: "safe-commands" },
  { name: "All commands", category: "all-commands" },
  { name: "Browser", category: "browser" },
  { name: "MCP", category: "mcp" },
] as const satisfies ReadonlyArray<{ name: string; category: ApprovalCategory }>;

export type AutoApproveName = (typeof autoApproveChoices)[number]["name"];

export type McpServerView = {
  name: string;
  /** "global": CAIRN_HOME/mcp_settings.json (a screen may switch it); "project": the workspace's .mcp.json. */
  source: "global" | "project";
  file: string;
  enabled: boolean;
  /** In a few words, as cairn mcp list says it: not started, connected, failed, disabled, needs approval. */
  status: string;
  /** Tool names, live or as last seen; empty when never connected. */
  tools: string[];
  /** The last failure known (a start that failed, an entry that cannot be read). */
  error?: string;
};

export type RuleFileView = {
  /** Absolute path: what settings' rulesOff holds. */
  path: string;
  /** As people see it (workspace-relative inside the workspace). */
  source: string;
  scope: "global" | "project";
  on: boolean;
};

export type SettingsView = {
  /** CAIRN_HOME/settings.json. */
  file: string;
  /** The file's problem (it is broken as it stands); the view then shows the defaults and saving is refused. */
  problem?: string;
  autoApprove: Array<{ name: AutoApproveName; category: ApprovalCategory; on: boolean }>;
  /** settings.json's maxTurns: the most model requests one task makes; undefined: no limit. */
  maxRequests: number | undefined;
  provider: ProviderId;
  model: string;
  /** Whether the provider's key is in the environment (its variables, then CAIRN_API_KEY); never the key. */
  keySet: boolean;
  /** The variable the key was found in, or the ones it is looked for in. */
  keyVariables: string[];
  /** Providers that need no key (local servers) always count as set. */
  keyNeeded: boolean;
  providers: ProviderId[];
  sandboxMode: SandboxMode;
  sandboxModes: readonly SandboxMode[];
  mcpServers: McpServerView[];
  /** Rules files found for the workspace (none without one). */
  rules: RuleFileView[];
  /** Settings the view shows that a higher layer sets, so tasks here do not take the file's value: the key and what sets it. */
  overridden: Array<{ key: ShownKey; by: string }>;
};

/** The settings.json keys a settings screen shows. */
const shownKeys = ["autoApprove", "maxTurns", "provider", "model", "sandbox", "rulesOff"] as const;
type ShownKey = (typeof shownKeys)[number];

/** What a screen may change; values arrive as a person typed them and are checked by the schema. */
export type SettingsChange =
  | { kind: "autoApprove"; name: AutoApproveName; on: boolean }
  | { kind: "maxRequests"; value: unknown }
  | { kind: "model"; provider: unknown; model?: unknown }
  | { kind: "sandboxMode"; value: unknown }
  | { kind: "rule"; path: string; on: boolean }
  | { kind: "mcpServer"; name: string; enabled: boolean };

export type SettingsEditorOptions = {
  home: string;
  env: Env;
  cwd?: string;
  /** The host's own flags (cairn web --auto-approve ...): they win over the file, and the view says so. */
  overrides?: Partial<Settings>;
};

export type ChangeResult = { ok: true; view: SettingsView } | { ok: false; error: string };

const settingsFile = (home: string): string => path.join(home, "settings.json");

/** The person's settings as a screen shows them, with the workspace's rules files and MCP servers when a workspace is given. */
export function readSettingsView(options: SettingsEditorOptions): SettingsView {
  const file = settingsFile(options.home);
  let settings: Settings = {};
  let problem: string | undefined;
  const read = readDocument(file);
  if (!read.ok) problem = read.error;
  else {
    const parsed = settingsSchema.safeParse(read.document);
    if (parsed.success) settings = parsed.data;
    else problem = `${file}: ${describeIssue(parsed.error.issues[0]!, settingsSchema)}. Fix the file or move it aside.`;
  }
  const approved = new Set<ApprovalCategory>(settings.autoApprove ?? ["read"]);
  const provider = settings.provider ?? "anthropic";
  const keyNeeded = providers[provider].keyRequired;
  const keyVariables = providers[provider].keyEnv.length > 0 ? [...providers[provider].keyEnv, "CAIRN_API_KEY"] : [];
  const found = keyVariables.find((name) => options.env[name]?.trim());
  return {
    file,
    ...(problem ? { problem } : {}),
    autoApprove: autoApproveChoices.map((c) => ({ name: c.name, category: c.category, on: approved.has(c.category) })),
    maxRequests: settings.maxTurns,
    provider,
    model: settings.model ?? providers[provider].defaultModel ?? "",
    keySet: !keyNeeded || apiKeyFromEnv(provider, options.env) !== undefined,
    keyVariables: found ? [found] : keyVariables,
    keyNeeded,
    providers: Object.keys(providers) as ProviderId[],
    sandboxMode: settings.sandbox?.mode ?? "workspace-write",
    sandboxModes,
    mcpServers: options.cwd ? mcpServers(options.home, options.cwd, options.env) : [],
    rules: options.cwd ? rulesFiles(options.home, options.cwd, settings.rulesOff ?? []) : [],
    overridden: overridden(options),
  };
}

/** Which shown keys the flags, the environment or the workspace's trusted .cairn/settings.json set (highest first). */
function overridden(options: SettingsEditorOptions): SettingsView["overridden"] {
  const layers: Array<[string, Partial<Settings>]> = [["this session's flags", options.overrides ?? {}]];
  try {
    layers.push(["the environment", settingsFromEnv(options.env)]);
  } catch {
    // A bad variable is reported when a task starts; here it sets nothing.
  }
  if (options.cwd) layers.push(["the workspace's .cairn/settings.json", loadWorkspaceSettings(options.home, options.cwd).settings]);
  return shownKeys.flatMap((key) => {
    const layer = layers.find(([, settings]) => settings[key] !== undefined && (key !== "sandbox" || settings.sandbox?.mode !== undefined));
    return layer ? [{ key, by: layer[0] }] : [];
  });
}

/**
 * Applies one change to CAIRN_HOME/settings.json (or, for an MCP server, mcp_settings.json). A
 * value the schema refuses, or a file that is broken as it stands, leaves the file untouched and
 * comes back as one line naming the key.
 */
export function applySettingsChange(options: SettingsEditorOptions, change: SettingsChange): ChangeResult {
  if (change.kind === "mcpServer") {
    const switched = switchServer(options.home, change.name, change.enabled);
    return switched === undefined ? { ok: true, view: readSettingsView(options) } : { ok: false, error: switched };
  }
  const file = settingsFile(options.home);
  const read = readDocument(file);
  if (!read.ok) return { ok: false, error: `${read.error} (nothing was saved)` };
  const document = { ...read.document };
  edit(document, change);
  const parsed = settingsSchema.safeParse(document);
  if (!parsed.success) {
    return { ok: false, error: `Not saved: ${describeIssue(parsed.error.issues[0]!, settingsSchema)}; ${file} was left as it was.` };
  }
  mkdirSync(options.home, { recursive: true });
  writeFileAtomicSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return { ok: true, view: readSettingsView(options) };
}

/** Changes the document in place; what is left for the schema to judge is the value as given. */
function edit(document: Record<string, unknown>, change: Exclude<SettingsChange, { kind: "mcpServer" }>): void {
  switch (change.kind) {
    case "autoApprove": {
      const current = Array.isArray(document.autoApprove) ? (document.autoApprove as unknown[]) : ["read"];
      const category = autoApproveChoices.find((c) => c.name === change.name)?.category ?? change.name;
      const without = current.filter((c) => c !== category);
      document.autoApprove = change.on ? [...without, category] : without;
      return;
    }
    case "maxRequests":
      if (change.value === null || change.value === undefined || change.value === "") delete document.maxTurns;
      else document.maxTurns = typeof change.value === "string" && change.value.trim() !== "" && !Number.isNaN(Number(change.value)) ? Number(change.value) : change.value;
      return;
    case "model": {
      const changedProvider = document.provider !== change.provider;
      document.provider = change.provider;
      // Another provider's model id would be sent to the wrong API: a new provider starts at its default.
      if (typeof change.model === "string" && change.model.trim() !== "") document.model = change.model.trim();
      else if (change.model !== undefined && change.model !== "") document.model = change.model;
      else if (changedProvider) delete document.model;
      return;
    }
    case "sandboxMode": {
      const sandbox = isPlainObject(document.sandbox) ? document.sandbox : {};
      document.sandbox = { ...sandbox, mode: change.value };
      return;
    }
    case "rule": {
      const off = Array.isArray(document.rulesOff) ? (document.rulesOff as unknown[]).filter((p) => p !== change.path) : [];
      if (change.on) {
        if (off.length > 0) document.rulesOff = off;
        else delete document.rulesOff;
      } else {
        document.rulesOff = [...off, change.path];
      }
      return;
    }
  }
}

/** settings.json as an object, or why it cannot be edited (it is not JSON, not an object). */
function readDocument(file: string): { ok: true; document: Record<string, unknown> } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = readJsonConfig(file);
  } catch (error) {
    if (error instanceof ConfigFileError) return { ok: false, error: error.message };
    throw error;
  }
  if (json === undefined) return { ok: true, document: {} };
  if (!isPlainObject(json)) return { ok: false, error: `${file} must hold a JSON object; fix it by hand first` };
  return { ok: true, document: json };
}

function mcpServers(home: string, cwd: string, env: Env): McpServerView[] {
  let hub: McpHub;
  try {
    hub = McpHub.load({ home, cwd, env, restartDelaysMs: [] });
  } catch (error) {
    if (error instanceof McpConfigError) return [{ name: path.basename(globalConfigFile(home)), source: "global", file: globalConfigFile(home), enabled: false, status: "failed", tools: [], error: error.message }];
    throw error;
  }
  // Nothing was started: the hub only read the files and the tools last seen.
  return hub.servers().map((info) => serverView(hub, info));
}

function serverView(hub: McpHub, info: ServerInfo, failure?: string): McpServerView {
  const state = info.state;
  const error = failure ?? (state.status === "failed" ? state.reason : undefined);
  return {
    name: info.name,
    source: info.source,
    file: info.file,
    enabled: state.status !== "disabled",
    status: state.status === "failed" ? "failed" : stateText(state),
    tools: (hub.knownTools(info.name) ?? []).map((t) => t.name),
    ...(error ? { error } : {}),
  };
}

/**
 * Starts one server afresh as a task would (in the task's sandbox), lists its tools and stops it:
 * a screen's "restart". The failure, if any, is the row's error.
 */
export async function restartMcpServer(options: SettingsEditorOptions & { cwd: string }, name: string): Promise<{ ok: true; server: McpServerView } | { ok: false; error: string }> {
  const sandbox = mcpTaskSandbox({ cwd: options.cwd, home: options.home, env: options.env });
  let hub: McpHub;
  try {
    hub = McpHub.load({ home: options.home, cwd: options.cwd, env: options.env, restartDelaysMs: [], ...(sandbox.ok && sandbox.sandbox ? { sandbox: sandbox.sandbox } : {}) });
  } catch (error) {
    if (error instanceof McpConfigError) return { ok: false, error: error.message };
    throw error;
  }
  try {
    const info = hub.server(name);
    if (!info) return { ok: false, error: `There is no MCP server named ${name}.` };
    if (info.state.status === "disabled") return { ok: false, error: `${name} is switched off; switch it on first.` };
    if (info.state.status === "needs-approval") return { ok: false, error: `${name} comes from ${info.file} and is not trusted yet: cairn mcp approve ${name}.` };
    let failure: string | undefined;
    try {
      await hub.listTools(name);
    } catch (error) {
      if (!(error instanceof McpHubError)) throw error;
      const state = hub.server(name)?.state;
      failure = state?.status === "failed" ? state.reason : error.message;
    }
    return { ok: true, server: serverView(hub, hub.server(name)!, failure ?? hub.refusedWrite(name)) };
  } finally {
    await hub.close();
  }
}

/** Sets `disabled` on a server of the person's mcp_settings.json; undefined when done, else why not. */
function switchServer(home: string, name: string, enabled: boolean): string | undefined {
  const file = globalConfigFile(home);
  try {
    const entries = serverEntries(file, readConfigText(file) ?? "", { strict: true });
    const entry = entries[name];
    if (!isPlainObject(entry)) return `There is no MCP server named ${name} in ${file}; a workspace's .mcp.json servers are switched in that file.`;
    const { disabled: _old, ...rest } = entry;
    addServerEntry(file, name, enabled ? rest : { ...rest, disabled: true });
    return undefined;
  } catch (error) {
    if (error instanceof McpConfigError || error instanceof ConfigFileError) return `${error.message} (nothing was saved)`;
    throw error;
  }
}

function rulesFiles(home: string, cwd: string, off: readonly string[]): RuleFileView[] {
  return loadRules({ cwd, home, off }).sections.map((s) => ({ path: s.path, source: s.source, scope: s.scope, on: s.off !== true }));
}
