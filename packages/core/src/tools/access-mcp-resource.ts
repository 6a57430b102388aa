import { z } from "zod";
import { McpHubError } from "../mcp/connection.js";
import type { McpHub } from "../mcp/hub.js";
import { resourceResultFromMcp } from "./mcp/result.js";
import { defineTool, type ToolResult } from "./tool.js";

const parameters = z.object({
  server_name: z.string().min(1).describe("The MCP server, by the name listed under MCP servers."),
  uri: z.string().min(1).describe("The resource's URI, as the server lists it (or a resource template with its placeholders filled in)."),
});

const description = `Read a resource (a file, a record, a document) that an MCP server offers, by its URI. use_mcp_tool with just server_name lists a server's resources and resource templates.

Example:
<access_mcp_resource>
<server_name>docs</server_name>
<uri>docs://guides/getting-started.md</uri>
</access_mcp_resource>`;

/** access_mcp_resource bound to a task's hub. */
export function accessMcpResourceTool(hub: McpHub) {
  return defineTool({
    name: "access_mcp_resource",
    description,
    brief: "Read a resource of an MCP server by its URI (use_mcp_tool with just server_name lists them).",
    parameters,
    kind: "mcp",
    // MCP's resources/read only reads, by the protocol: it may run beside reads (tool calls may not).
    readOnly: true,
    modes: ["act", "plan"],
    summarize: (input) => `read ${input.uri} from MCP server ${input.server_name}`,
    async execute(input, ctx): Promise<ToolResult> {
      try {
        const result = await hub.readResource(input.server_name, input.uri, ctx.signal);
        return resourceResultFromMcp(result, ctx.modelSupportsImages);
      } catch (error) {
        if (!(error instanceof McpHubError)) throw error;
        const known = await hub.listResources(input.server_name, ctx.signal).catch(() => undefined);
        const list = known && known.resources.length > 0 ? ` Its resources: ${known.resources.slice(0, 20).map((r) => r.uri).join(", ")}.` : "";
        return { content: `${error.message}${list}`, isError: true };
      }
    },
  });
}
