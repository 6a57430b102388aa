import type { McpHub } from "../mcp/index.js";
import type { ProtocolName } from "../protocol/types.js";
import { offeredTools } from "../tools/brief-tools.js";
import { mcpTools, nativeMcpTools } from "../tools/mcp/mcp-tools.js";
import type { AnyTool, Mode } from "../tools/tool.js";
import type { ExecutedCall } from "./execute-call.js";
import { accessesOf } from "./gather-facts.js";
import type { TaskResult } from "./task-options.js";

/**
 * The tools of a task, and what the model has reached for through them: the tools it called
 * (rarely used ones are then offered in full, brief-tools.ts), the MCP servers whose schemas it
 * loaded (under the native protocol their tools become tools of their own) and the paths it
 * mentioned or touched (for rules that apply only to some files). What a turn offers depends on
 * all of these, so they live together rather than as fields of the loop.
 */
export class TaskTools {
  readonly byName: Map<string, AnyTool>;
  /** Paths mentioned or touched so far, for rules that apply only to some files. */
  readonly activePaths = new Set<string>();
  /** Tools the model has called: rarely used ones are offered in full from then on (brief-tools.ts). */
  private readonly called = new Set<string>();
  /** MCP servers whose tool schemas the model has asked for. */
  private readonly mcpLoaded = new Set<string>();

  constructor(
    list: readonly AnyTool[],
    private readonly mcp: McpHub | undefined,
  ) {
    const tools = [...list, ...(mcp && mcp.servers().some((s) => s.state.status !== "disabled") ? mcpTools(mcp) : [])];
    this.byName = new Map(tools.map((t) => [t.name, t]));
  }

  /** Every tool of `mode`, in full. */
  inMode(mode: Mode): AnyTool[] {
    return [...this.byName.values()].filter((t) => t.modes.includes(mode));
  }

  /** What a turn offers the model in `mode`. */
  offered(mode: Mode, protocol: ProtocolName): AnyTool[] {
    // Native protocol: tools of MCP servers whose schemas the model has loaded become tools of their own.
    if (protocol === "native" && this.mcp) {
      for (const tool of nativeMcpTools(this.mcp, [...this.mcpLoaded])) if (!this.byName.has(tool.name)) this.byName.set(tool.name, tool);
    }
    return offeredTools(this.inMode(mode), this.called);
  }

  /** Remembers what a step's calls touched (for path rules and MCP schemas); returns its denials. */
  noteStep(executed: readonly ExecutedCall[]): TaskResult["permission_denials"] {
    const denials: TaskResult["permission_denials"] = [];
    for (const done of executed) {
      this.called.add(done.call.name);
      for (const access of accessesOf(this.byName.get(done.call.name), done.call.input)) this.activePaths.add(access.path);
      if (done.call.name === "use_mcp_tool" && done.verdict === "ok" && !done.call.input.tool_name && typeof done.call.input.server_name === "string") {
        this.mcpLoaded.add(done.call.input.server_name);
      }
      if (done.verdict === "denied") denials.push({ tool_name: done.call.name, tool_use_id: done.call.id, tool_input: done.call.input });
    }
    return denials;
  }
}
