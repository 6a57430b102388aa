import type { McpServer } from "@agentclientprotocol/sdk";
import { DEFAULT_TIMEOUT_SECONDS, type ServerConfig } from "@cairn/core";

/**
 * The MCP servers an editor passes with session/new or session/load, as Cairn's server config.
 * The person configured them in their editor, so they count as their own ("global"); stdio ones
 * run in the OS sandbox like every server.
 */
export function serverConfigs(servers: readonly McpServer[], cwd: string): ServerConfig[] {
  return servers.map((server) => {
    const common = {
      name: server.name,
      source: "global" as const,
      file: "the editor's settings",
      disabled: false,
      autoApprove: [],
      disabledTools: [],
      timeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000,
      raw: server as unknown as Record<string, unknown>,
    };
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
      return { ...common, transport: server.type, url: server.url, headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])), fallbackToSse: false };
    }
    const stdio = server as Extract<McpServer, { command: string }>;
    return { ...common, transport: "stdio", command: stdio.command, args: stdio.args, env: Object.fromEntries(stdio.env.map((e) => [e.name, e.value])), cwd, sandbox: true };
  });
}
