import {
  applySettingsChange,
  loadWorkspaceSettings,
  readSettingsView,
  restartMcpServer,
  settingOptions,
  type Env,
  type SessionOverrides,
  type SettingKey,
  type Settings,
  type SettingsChange,
  type SettingsView,
} from "@cairn/core";
import type { SettingsRow, SettingsScreenSource } from "./settings-screen.js";

/** Words that clear the request limit (the field does not send an empty line). */
const noLimit = /^(none|no limit|off|unlimited)$/i;

/** What is set above the person's settings.json for this session: its flags (and /model), the environment, the trusted workspace's settings. */
export type SettingsAbove = { overrides: SessionOverrides; env: Env; workspace: Partial<Settings> };

/** Who sets `key` over the person's file in this session, in their words ("--model", "CAIRN_SANDBOX"), or undefined. */
export function winnerOf(key: SettingKey, above: SettingsAbove): string | undefined {
  const option = settingOptions[key] as { flag?: { name: string }; env?: string };
  const sets = (value: unknown) => (key === "sandbox" ? (value as Settings["sandbox"])?.mode !== undefined : value !== undefined);
  if (sets(above.overrides[key as keyof SessionOverrides])) return `${option.flag ? `--${option.flag.name}` : key}${key === "model" ? " (or /model)" : ""}`;
  if (option.env && above.env[option.env]?.trim()) return option.env;
  if (sets(above.workspace[key])) return "the workspace's .cairn/settings.json";
  return undefined;
}

function keyLine(view: SettingsView): string {
  if (!view.keyNeeded) return "not needed";
  if (view.keySet) return `set (${view.keyVariables[0] ?? "environment"})`;
  return `not set: export ${view.keyVariables.join(" or ")}`;
}

/** The rows /settings shows, from core's view of the person's settings and what wins over them here. */
export function settingsRows(view: SettingsView, above: SettingsAbove): SettingsRow[] {
  const wins = (key: SettingKey, otherwise: string) => {
    const winner = winnerOf(key, above);
    return winner ? `${winner} wins in this session` : otherwise;
  };
  const rows: SettingsRow[] = [{ kind: "heading", label: "Auto-approve" }];
  const approver = above.overrides.yolo ? "--yolo (it approves everything)" : winnerOf("autoApprove", above);
  if (approver) rows.push({ kind: "fact", label: "this session", value: `${approver} wins over these` });
  for (const choice of view.autoApprove) rows.push({ kind: "check", id: `auto:${choice.name}`, label: choice.name, on: choice.on });
  const limit = view.maxRequests === undefined ? "" : String(view.maxRequests);
  rows.push({ kind: "value", id: "maxRequests", label: "Max requests per task", value: limit || "no limit", editText: limit, hint: wins("maxTurns", "a number, or none") });
  rows.push({ kind: "heading", label: "Model" });
  rows.push({ kind: "value", id: "provider", label: "Provider", value: view.provider, choices: view.providers, hint: wins("provider", "Enter: next provider") });
  rows.push({ kind: "value", id: "model", label: "Model", value: view.model, hint: wins("model", "Enter: type a model id") });
  rows.push({ kind: "fact", label: "API key", value: keyLine(view) });
  rows.push({ kind: "heading", label: "Sandbox" });
  rows.push({ kind: "value", id: "sandbox", label: "Mode", value: view.sandboxMode, choices: view.sandboxModes, hint: wins("sandbox", "Enter: next mode") });
  rows.push({ kind: "heading", label: "MCP servers" });
  if (view.mcpServers.length === 0) rows.push({ kind: "fact", label: "none", value: "add one with cairn mcp add" });
  for (const server of view.mcpServers) {
    const tools = server.tools.length === 0 ? "no tools seen yet" : `${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}: ${server.tools.join(", ")}`;
    const hint = [server.status, server.source === "project" ? "from the workspace" : undefined, server.error ?? tools].filter(Boolean).join(" · ");
    rows.push({ kind: "check", id: `mcp:${server.name}`, label: server.name, on: server.enabled, hint, action: { key: "r", label: "restarts it", doing: "restarting" } });
  }
  rows.push({ kind: "heading", label: "Rules files" });
  if (view.rules.length === 0) rows.push({ kind: "fact", label: "none", value: "no rules files found for this workspace" });
  for (const rule of view.rules) rows.push({ kind: "check", id: `rule:${rule.path}`, label: rule.source, on: rule.on, hint: rule.scope });
  return rows;
}

/** What the person did on a row, as the change core checks and saves. */
function changeFor(view: SettingsView, id: string, text?: string): SettingsChange | undefined {
  const [kind, ...restParts] = id.split(":");
  const rest = restParts.join(":");
  switch (kind) {
    case "auto": {
      const choice = view.autoApprove.find((c) => c.name === rest);
      return choice && { kind: "autoApprove", name: choice.name, on: !choice.on };
    }
    case "mcp": {
      const server = view.mcpServers.find((s) => s.name === rest);
      return server && { kind: "mcpServer", name: server.name, enabled: !server.enabled };
    }
    case "rule": {
      const rule = view.rules.find((r) => r.path === rest);
      return rule && { kind: "rule", path: rule.path, on: !rule.on };
    }
    case "maxRequests":
      return { kind: "maxRequests", value: text === undefined || noLimit.test(text.trim()) ? null : text };
    case "provider":
      return { kind: "model", provider: text };
    case "model":
      return { kind: "model", provider: view.provider, model: text };
    case "sandbox":
      return { kind: "sandboxMode", value: text };
  }
  return undefined;
}

/**
 * /settings over the person's settings.json: read when the screen opens, each change checked and
 * saved by core (settings.json's own validation, written whole or not at all). `overrides`: the
 * session's flags, which win over the file while it lasts (the rows say so).
 */
export function settingsSource(options: { home: string; env: Env; cwd: string; overrides: SessionOverrides }): SettingsScreenSource {
  const { overrides, ...editor } = options;
  let view = readSettingsView(editor);
  const above = (): SettingsAbove => ({ overrides, env: options.env, workspace: loadWorkspaceSettings(options.home, options.cwd).settings });
  let shownAbove = above();
  const apply = async (id: string, text?: string): Promise<string | undefined> => {
    const change = changeFor(view, id, text);
    if (!change) return undefined;
    const result = applySettingsChange(editor, change);
    if (!result.ok) return result.error;
    view = result.view;
    shownAbove = above();
    return undefined;
  };
  return {
    file: view.file,
    problem: () => view.problem,
    rows: () => settingsRows(view, shownAbove),
    toggle: (id) => apply(id),
    set: (id, text) => apply(id, text),
    async act(id) {
      const name = id.replace(/^mcp:/, "");
      // Started afresh as a task would start it, its tools listed, then stopped: the row shows what it said.
      const result = await restartMcpServer(editor, name);
      if (!result.ok) return result.error;
      view = { ...view, mcpServers: view.mcpServers.map((s) => (s.name === name ? result.server : s)) };
      return result.server.error;
    },
  };
}
