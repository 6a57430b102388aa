import { openSandbox } from "../sandbox/open-sandbox.js";
import { sandboxRequest } from "../sandbox/sandbox-settings.js";
import type { CommandSandbox } from "../sandbox/command-sandbox.js";
import { mergeSettings, settingsFromEnv, type Env } from "./overrides.js";
import { loadWorkspaceSettings } from "./workspace-settings.js";
import { loadSettings } from "../storage/settings.js";

/**
 * The OS sandbox a task in the workspace would start its MCP servers in, from the same settings
 * layers as a task (no model needed): `cairn mcp test` and `list` start servers as a task would.
 * An error is one line (a broken settings file, `required` without bubblewrap).
 */
export function mcpTaskSandbox(options: { cwd: string; home: string; env: Env }): { ok: true; sandbox: CommandSandbox | undefined } | { ok: false; error: string } {
  try {
    const settings = mergeSettings(loadSettings(options.home), loadWorkspaceSettings(options.home, options.cwd).settings, settingsFromEnv(options.env), {});
    const request = sandboxRequest(undefined, undefined, settings.sandbox);
    if (!request.ok) return request;
    const opened = openSandbox(request.request, { workspace: options.cwd, cairnHome: options.home, env: options.env });
    return opened.ok ? { ok: true, sandbox: opened.sandbox } : opened;
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
