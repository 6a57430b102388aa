import { applySettingsChange, autoApproveChoices, readSettingsView, restartMcpServer, type SettingsChange, type SettingsView } from "@cairn/core";
import type { Settings } from "@cairn/core/storage";
import { z } from "zod";
import { readJson, send } from "./http-io.js";
import type { Route } from "./route-table.js";

/**
 * The Settings view's part of the API: the person's settings as core's settings editor shows them,
 * one change at a time (checked by settings.json's own schema, so a refused value is the one line
 * the editor words), and a fresh start of one MCP server. Tasks read the file when they open, so a
 * change applies from the next task.
 */
const names = autoApproveChoices.map((c) => c.name) as [string, ...string[]];
const serverName = z.string().min(1).max(200);
/** Values stay as typed (unknown) here: the editor's schema judges them and names the key. */
const changeBody = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("autoApprove"), name: z.enum(names), on: z.boolean() }),
  z.object({ kind: z.literal("maxRequests"), value: z.unknown() }),
  z.object({ kind: z.literal("model"), provider: z.unknown(), model: z.unknown().optional() }),
  z.object({ kind: z.literal("sandboxMode"), value: z.unknown() }),
  z.object({ kind: z.literal("rule"), path: z.string().min(1).max(4096), on: z.boolean() }),
  z.object({ kind: z.literal("mcpServer"), name: serverName, enabled: z.boolean() }),
]);

export function settingsRoutes(o: { home: string; cwd: string; env: NodeJS.ProcessEnv; overrides: Partial<Settings> }): Route[] {
  /** The last restart's failure per server, until one succeeds: the view's "last error" for servers no task here has started. */
  const lastErrors = new Map<string, string>();
  const withErrors = (view: SettingsView): SettingsView => ({
    ...view,
    mcpServers: view.mcpServers.map((s) => (s.error === undefined && lastErrors.has(s.name) && s.enabled ? { ...s, error: lastErrors.get(s.name)! } : s)),
  });
  return [
    ["GET", "/api/settings", ({ res }) => send(res, 200, withErrors(readSettingsView(o)))],
    ["POST", "/api/settings", async ({ req, res }) => {
      const body = await readJson(req, changeBody);
      if (!body.ok) return send(res, 400, { error: body.message });
      const changed = applySettingsChange(o, body.value as SettingsChange);
      return changed.ok ? send(res, 200, withErrors(changed.view)) : send(res, 400, { error: changed.error });
    }],
    ["POST", /^\/api\/settings\/mcp\/([\w.-]+)\/restart$/, async ({ res, params: [name] }) => {
      const restarted = await restartMcpServer(o, name!);
      if (restarted.ok && restarted.server.error) lastErrors.set(name!, restarted.server.error);
      else if (restarted.ok) lastErrors.delete(name!);
      return restarted.ok ? send(res, 200, restarted.server) : send(res, 400, { error: restarted.error });
    }],
  ];
}
