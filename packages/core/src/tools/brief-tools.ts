import { splitDescription } from "./describe-tool.js";
import { bareParameterSchema, parameterLines } from "./describe-parameters.js";
import type { AnyTool } from "./tool.js";

/*
 * Rarely used tools (the browser, web_fetch, the code outline, MCP resources, asking the person,
 * progress notes, new_task, use_subagents) cost the first request as much as the everyday ones.
 * Until the model first calls one, it is offered in its one-line `brief` with a schema that keeps
 * names, types and enums but no descriptions or bounds, so most
 * first calls are right at once; from that call on, it is offered in full. A first call whose
 * input is wrong gets the full description in its error (tools/run-tool.ts), so the retry needs
 * no extra step. The same shape as MCP, where the model sees tool names until it loads a server.
 */

const briefForms = new WeakSet<AnyTool>();
const cache = new WeakMap<AnyTool, AnyTool>();

/** The tool as offered before its first call: its brief line, and a schema without descriptions. */
export function briefForm(tool: AnyTool): AnyTool {
  if (tool.brief === undefined) return tool;
  const cached = cache.get(tool);
  if (cached) return cached;
  const brief: AnyTool = { ...tool, description: tool.brief, inputJsonSchema: bareParameterSchema(tool) };
  briefForms.add(brief);
  cache.set(tool, brief);
  return brief;
}

/** True for a tool offered by its brief line (the system prompt then says how such tools work). */
export function isBriefForm(tool: AnyTool): boolean {
  return briefForms.has(tool);
}

/** The tools as the next request offers them: rarely used ones brief until the model has called them. */
export function offeredTools(tools: readonly AnyTool[], called: ReadonlySet<string>): AnyTool[] {
  return tools.map((tool) => (called.has(tool.name) ? tool : briefForm(tool)));
}

/** What a failed call of a briefly offered tool adds to its error: the description and parameters in full. */
export function fullDescription(tool: AnyTool): string {
  const { prose } = splitDescription(tool);
  return `${tool.name} in full (offered in full from now on):\n${prose}\nParameters:\n${parameterLines(tool)}`;
}
