import { createHash } from "node:crypto";
import { z } from "zod";
import { accessMcpResourceTool } from "../access-mcp-resource.js";
import type { AnyTool } from "../tool.js";
import { useMcpTool } from "../use-mcp-tool.js";
import { McpHubError } from "../../mcp/connection.js";
import type { McpHub } from "../../mcp/hub.js";
import { toolResultFromMcp } from "./result.js";

/** The generic MCP tools (both protocols): use_mcp_tool and access_mcp_resource, bound to a hub. */
export function mcpTools(hub: McpHub): AnyTool[] {
  return [useMcpTool(hub), accessMcpResourceTool(hub)];
}

/** A native tool: the MCP tool's own JSON schema goes to the provider instead of the (empty) zod one. */
export type NativeMcpTool = AnyTool & { inputJsonSchema: Record<string, unknown> };

const MAX_NAME = 64;

/** `mcp__<server>__<tool>`, in the characters providers accept, at most 64 long (a hash keeps long names apart). */
export function nativeToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (name.length <= MAX_NAME) return name;
  const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/**
 * One tool per MCP tool of the given servers, for the native protocol: named mcp__server__tool,
 * described by the server, with the server's input schema as `inputJsonSchema`. Uses the tools the
 * hub knows (connected now, or cached from an earlier run); servers whose tools are unknown are
 * left out (await hub.listTools or hub.connectAll first). Arguments are checked against the
 * schema by the hub before each call.
 */
export function nativeMcpTools(hub: McpHub, servers: readonly string[]): NativeMcpTool[] {
  const tools: NativeMcpTool[] = [];
  const taken = new Set<string>();
  for (const server of servers) {
    for (const tool of hub.knownTools(server) ?? []) {
      let name = nativeToolName(server, tool.name);
      if (taken.has(name)) name = nativeToolName(server, `${tool.name}\u0000${taken.size}`);
      taken.add(name);
      const { $schema: _meta, ...schema } = tool.inputSchema;
      tools.push({
        name,
        description: `${tool.description.trim() || `Tool ${tool.name}`} (MCP server ${server}, tool ${tool.name})`,
        parameters: z.looseObject({}),
        inputJsonSchema: { type: "object", ...schema },
        kind: "mcp",
        modes: ["act"],
        autoApproved: () => hub.autoApproves(server, tool.name),
        summarize: () => `${server}: ${tool.name}`,
        async execute(input: Record<string, unknown>, ctx) {
          try {
            return toolResultFromMcp(await hub.callTool(server, tool.name, input, ctx.signal), ctx.modelSupportsImages);
          } catch (error) {
            if (error instanceof McpHubError) return { content: error.message, isError: true };
            throw error;
          }
        },
      });
    }
  }
  return tools;
}
