import { z } from "zod";
import { McpHubError } from "../mcp/connection.js";
import { describeServerTools } from "../mcp/describe.js";
import type { McpHub } from "../mcp/hub.js";
import { toolResultFromMcp } from "./mcp/result.js";
import { defineTool, type ToolResult } from "./tool.js";

const parameters = z.object({
  server_name: z.string().min(1).describe("The MCP server, by the name listed under MCP servers."),
  tool_name: z
    .string()
    .optional()
    .describe("The tool to call. Leave it out to get the server's tools with their descriptions and input schemas (and its resources) instead."),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("The tool's arguments: a JSON object matching the tool's input schema. Leave it out for a tool without parameters."),
});

const description = `Use a tool of a connected MCP (Model Context Protocol) server. The MCP servers section lists each server's tool names only: before you call a server's tools for the first time, call use_mcp_tool with just server_name to get their descriptions and input schemas.
Arguments are checked against the tool's input schema before the call; a mismatch comes back listing what is wrong, and the call is not made. The result is the tool's output (text, and pictures when the model takes images); an error from the tool comes back as an error.

Example:
<use_mcp_tool>
<server_name>weather</server_name>
<tool_name>get_forecast</tool_name>
<arguments>{"city": "Lisbon", "days": 3}</arguments>
</use_mcp_tool>`;

/** use_mcp_tool bound to a task's hub. */
export function useMcpTool(hub: McpHub) {
  return defineTool({
    name: "use_mcp_tool",
    description,
    parameters,
    kind: "mcp",
    modes: ["act"],
    // Listing a server's tools runs nothing of the user's; a call runs without asking only when its server's autoApprove says so.
    autoApproved: (input) => input.tool_name === undefined || input.tool_name === "" || hub.autoApproves(input.server_name, input.tool_name),
    summarize: (input) => (input.tool_name ? `${input.server_name}: ${input.tool_name}` : `list the tools of MCP server ${input.server_name}`),
    async execute(input, ctx): Promise<ToolResult> {
      try {
        if (input.tool_name === undefined || input.tool_name === "") {
          const tools = await hub.listTools(input.server_name, ctx.signal);
          const { resources, templates } = await hub.listResources(input.server_name, ctx.signal).catch(() => ({ resources: [], templates: [] }));
          return {
            content: describeServerTools({
              name: input.server_name,
              title: hub.title(input.server_name),
              instructions: hub.instructions(input.server_name),
              tools,
              resources,
              templates,
            }),
          };
        }
        const result = await hub.callTool(input.server_name, input.tool_name, input.arguments ?? {}, ctx.signal);
        return toolResultFromMcp(result, ctx.modelSupportsImages);
      } catch (error) {
        if (error instanceof McpHubError) return { content: error.message, isError: true };
        throw error;
      }
    },
  });
}
