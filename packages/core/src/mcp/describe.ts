import type { Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import type { ServerState } from "./connection.js";
import type { ServerInfo } from "./hub.js";
import type { McpToolInfo } from "./tool-cache.js";

const SUMMARY_CHARS = 200;
const INSTRUCTIONS_CHARS = 8000;

/** "Title: first real line of the instructions", short enough for one prompt line. */
export function summaryLine(title: string | undefined, instructions: string | undefined): string | undefined {
  const line = instructions
    ?.split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("#") && !/^[-=*_]{3,}$/.test(l));
  const text = [title, line].filter((p) => p !== undefined && p !== "").join(": ");
  if (text === "") return undefined;
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
}

/** A state in a few words, for the prompt and `cairn mcp list`. */
export function stateText(state: ServerState): string {
  switch (state.status) {
    case "idle":
      return "not started";
    case "connecting":
      return "connecting";
    case "connected":
      return "connected";
    case "disabled":
      return "disabled";
    case "needs-approval":
      return "needs approval";
    case "failed": {
      if (state.retryAt === undefined) return `failed (${state.reason})`;
      const seconds = Math.max(0, Math.ceil((state.retryAt - Date.now()) / 1000));
      return `failed (${state.reason}); retrying in ${seconds} s`;
    }
  }
}

/**
 * The system prompt's section: names, one line each, tool NAMES only (full schemas of every
 * server would crowd the context; the model asks for one server's when it needs them).
 */
export function describeServers(servers: Array<{ info: ServerInfo; tools: string[] | undefined }>): string {
  const shown = servers.filter((s) => s.info.state.status !== "disabled");
  if (shown.length === 0) return "";
  const lines = shown.map(({ info, tools }) => {
    const about = info.summary ? ` — ${info.summary}` : "";
    switch (info.state.status) {
      case "needs-approval":
        return `- ${info.name}: not available; it comes from this project's .mcp.json and the user has not trusted it yet (they can run: cairn trust, or cairn mcp approve ${info.name}).`;
      case "failed":
        if (info.state.retryAt === undefined) return `- ${info.name}: not available; ${stateText(info.state)}.`;
        break;
      default:
        break;
    }
    if (tools === undefined) return `- ${info.name}${about}\n  tools: not known until it starts (use_mcp_tool with only server_name starts it and lists them).`;
    return `- ${info.name}${about}\n  tools: ${tools.length === 0 ? "(none)" : tools.join(", ")}`;
  });
  return `# MCP servers

These Model Context Protocol servers give you more tools. Call one with use_mcp_tool (server_name, tool_name, arguments as a JSON object). Only the tool names are listed here: before a server's first call, call use_mcp_tool with only server_name to get its tools' descriptions and input schemas (and its resources). Read a resource with access_mcp_resource.

${lines.join("\n")}`;
}

/** What the model gets when it asks for a server's tools: descriptions and input schemas, resources, instructions. */
export function describeServerTools(input: {
  name: string;
  title: string | undefined;
  instructions: string | undefined;
  tools: McpToolInfo[];
  resources: Resource[];
  templates: ResourceTemplate[];
}): string {
  const parts = [`MCP server ${input.name}${input.title ? ` (${input.title})` : ""}`];
  if (input.instructions?.trim()) {
    const text = input.instructions.trim();
    parts.push(`Its instructions:\n${text.length > INSTRUCTIONS_CHARS ? `${text.slice(0, INSTRUCTIONS_CHARS)}\n[... instructions cut ...]` : text}`);
  }
  if (input.tools.length === 0) parts.push("It has no tools.");
  else {
    const tools = input.tools.map((t) => {
      const { $schema: _meta, ...schema } = t.inputSchema;
      return `## ${t.name}\n${t.description.trim() || "(no description)"}\nInput schema: ${JSON.stringify(schema)}`;
    });
    parts.push(`Tools (${input.tools.length}); call them with use_mcp_tool, server_name "${input.name}":\n\n${tools.join("\n\n")}`);
  }
  if (input.resources.length > 0) {
    const list = input.resources.map((r) => `- ${r.uri}${r.name && r.name !== r.uri ? ` (${r.name})` : ""}${r.mimeType ? ` ${r.mimeType}` : ""}${r.description ? `: ${r.description}` : ""}`);
    parts.push(`Resources (${input.resources.length}); read them with access_mcp_resource:\n${list.join("\n")}`);
  }
  if (input.templates.length > 0) {
    const list = input.templates.map((t) => `- ${t.uriTemplate}${t.description ? `: ${t.description}` : ""}`);
    parts.push(`Resource templates (fill in the {placeholders}):\n${list.join("\n")}`);
  }
  return parts.join("\n\n");
}
