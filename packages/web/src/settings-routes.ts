import { applySettingsChange, autoApproveChoices, readSettingsView, restartMcpServer, type SettingsChange } from "@cairn/core";
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

export function settingsRoutes(o: { home: string; cwd: string; env: NodeJS.ProcessEnv }): Route[] {
  return [
    ["GET", "/api/settings", ({ res }) => send(res, 200, readSettingsView(o))],
    ["POST", "/api/settings", async ({ req, res }) => {
      const body = await readJson(req, changeBody);
      if (!body.ok) return send(res, 400, { error: body.message });
      const changed = applySettingsChange(o, body.value as SettingsChange);
      return changed.ok ? send(res, 200, changed.view) : send(res, 400, { error: changed.error });
    }],
    ["POST", /^\/api\/settings\/mcp\/([\w.-]+)\/restart$/, async ({ res, params: [name] }) => {
      const restarted = await restartMcpServer(o, name!);
      return restarted.ok ? send(res, 200, restarted.server) : send(res, 400, { error: restarted.error });
    }],
  ];
}
