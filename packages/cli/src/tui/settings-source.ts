import { applySettingsChange, readSettingsView, type SettingsChange, type SettingsEditorOptions, type SettingsView } from "@cairn/core";
import type { SettingsRow, SettingsScreenSource } from "./settings-screen.js";

/** Words that clear the request limit (the field does not send an empty line). */
const noLimit = /^(none|no limit|off|unlimited)$/i;

function keyLine(view: SettingsView): string {
  if (!view.keyNeeded) return "not needed";
  if (view.keySet) return `set (${view.keyVariables[0] ?? "environment"})`;
  return `not set: export ${view.keyVariables.join(" or ")}`;
}

/** The rows /settings shows, from core's view of the person's settings. */
export function settingsRows(view: SettingsView): SettingsRow[] {
  const rows: SettingsRow[] = [{ kind: "heading", label: "Auto-approve" }];
  for (const choice of view.autoApprove) rows.push({ kind: "check", id: `auto:${choice.name}`, label: choice.name, on: choice.on });
  rows.push({ kind: "value", id: "maxRequests", label: "Max requests per task", value: view.maxRequests === undefined ? "no limit" : String(view.maxRequests), editText: view.maxRequests === undefined ? "" : String(view.maxRequests), hint: "a number, or none" });
  rows.push({ kind: "heading", label: "Model" });
  rows.push({ kind: "value", id: "provider", label: "Provider", value: view.provider, choices: view.providers, hint: "Enter: next provider" });
  rows.push({ kind: "value", id: "model", label: "Model", value: view.model, hint: "Enter: type a model id" });
  rows.push({ kind: "fact", label: "API key", value: keyLine(view) });
  rows.push({ kind: "heading", label: "Sandbox" });
  rows.push({ kind: "value", id: "sandbox", label: "Mode", value: view.sandboxMode, choices: view.sandboxModes, hint: "Enter: next mode" });
  rows.push({ kind: "heading", label: "MCP servers" });
  if (view.mcpServers.length === 0) rows.push({ kind: "fact", label: "none", value: "add one with cairn mcp add" });
  for (const server of view.mcpServers) {
    const tools = server.tools.length === 0 ? "no tools seen yet" : `${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}: ${server.tools.join(", ")}`;
    const hint = [server.status, server.source === "project" ? "from the workspace" : undefined, server.error ?? tools].filter(Boolean).join(" · ");
    rows.push({ kind: "check", id: `mcp:${server.name}`, label: server.name, on: server.enabled, hint });
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
 * saved by core (settings.json's own validation, written whole or not at all).
 */
export function settingsSource(options: SettingsEditorOptions): SettingsScreenSource {
  let view = readSettingsView(options);
  const apply = async (id: string, text?: string): Promise<string | undefined> => {
    const change = changeFor(view, id, text);
    if (!change) return undefined;
    const result = applySettingsChange(options, change);
    if (!result.ok) return result.error;
    view = result.view;
    return undefined;
  };
  return {
    file: view.file,
    problem: () => view.problem,
    rows: () => settingsRows(view),
    toggle: (id) => apply(id),
    set: (id, text) => apply(id, text),
  };
}
